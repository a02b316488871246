import { type ChannelAdapter, text, UNKNOWN } from './fields';

/**
 * `workchat-b`: DingTalk, as DingTalk documents its callbacks (bodies as decrypted by the relay).
 * - Robot messages (the chatbot's message callback): `msgtype`, `conversationId`, the sender as
 *   `senderStaffId` (inside the organisation) or `senderId`. Normalised to `message`.
 * - Contact-directory events (event subscription, HTTP push): `EventType` (`user_add_org`, ...),
 *   `CorpId`, `UserId` / `DeptId` lists. Normalised to `contact.<what>.<change>`; the operator
 *   (`OptStaffId`) is the actor when DingTalk names one.
 * DingTalk sends no link to a message or directory entry, so `url` is null.
 */
const CONTACT_EVENTS: Record<string, string> = {
  user_add_org: 'contact.user.added',
  user_modify_org: 'contact.user.modified',
  user_leave_org: 'contact.user.left',
  user_active_org: 'contact.user.activated',
  org_dept_create: 'contact.dept.created',
  org_dept_modify: 'contact.dept.modified',
  org_dept_remove: 'contact.dept.removed',
};

export const normaliseWorkchatB: ChannelAdapter = (_headers, payload) => {
  const eventType = text(payload, 'EventType');
  if (eventType) {
    const event = CONTACT_EVENTS[eventType];
    return event ? { event, project: text(payload, 'CorpId'), actor: text(payload, 'OptStaffId'), url: null } : UNKNOWN;
  }
  if (text(payload, 'msgtype') && text(payload, 'conversationId')) {
    return {
      event: 'message',
      project: text(payload, 'conversationId'),
      actor: text(payload, 'senderStaffId', 'senderId', 'senderNick'),
      url: null,
    };
  }
  return UNKNOWN;
};
