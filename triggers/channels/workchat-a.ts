import { type ChannelAdapter, text, UNKNOWN, withAction } from './fields';

/**
 * `workchat-a`: Lark / Feishu event subscriptions, as Lark documents them.
 * - Event v2 (`schema: "2.0"`, kind in `header.event_type`): `im.message.receive_v1` (a message to
 *   the bot or in its chats: `event.message.chat_id`, `event.sender.sender_id`) and
 *   `calendar.calendar.event.changed_v4` (events of a subscribed calendar changed: `event.calendar_id`).
 * - Approval events still come in the v1 format (`type: "event_callback"`, kind in `event.type`):
 *   `approval_instance` (an instance changed status: `approval.approved`, `approval.rejected`, ...)
 *   and `approval_task` (one approver's task did: `approval_task.pending`, ...).
 * Lark sends no link to a message or approval, so `url` is null.
 */
const senderOf = (payload: Record<string, unknown>) =>
  text(payload, 'event.sender.sender_id.user_id', 'event.sender.sender_id.open_id', 'event.sender.sender_id.union_id');

const lowerStatus = (payload: Record<string, unknown>) => text(payload, 'event.status')?.toLowerCase() ?? null;

export const normaliseWorkchatA: ChannelAdapter = (_headers, payload) => {
  switch (text(payload, 'header.event_type')) {
    case 'im.message.receive_v1':
      return { event: 'message', project: text(payload, 'event.message.chat_id'), actor: senderOf(payload), url: null };
    case 'calendar.calendar.event.changed_v4':
      return { event: 'calendar.event.changed', project: text(payload, 'event.calendar_id'), actor: null, url: null };
    default:
      break;
  }
  if (text(payload, 'type') !== 'event_callback') return UNKNOWN;
  switch (text(payload, 'event.type')) {
    case 'approval_instance':
      return { event: withAction('approval', lowerStatus(payload)), project: text(payload, 'event.approval_code'), actor: null, url: null };
    case 'approval_task':
      return {
        event: withAction('approval_task', lowerStatus(payload)),
        project: text(payload, 'event.approval_code'),
        actor: text(payload, 'event.user_id', 'event.open_id'),
        url: null,
      };
    default:
      return UNKNOWN;
  }
};
