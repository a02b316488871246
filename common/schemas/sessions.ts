import { z } from 'zod';
import { isoDate, metadataMap, pageOf, pageQuery, resourceId } from './common';
import { agentId } from './agents';

export const sessionId = resourceId('ses', 'session id');

/** `active` accepts completions and messages; `archived` is read-only (further writes are 10005). */
const sessionStatus = z.enum(['active', 'archived']).meta({ id: 'SessionStatus' });

export const createSessionBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    user_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'end user the session serves; defaults to the caller (API key id or JWT subject)' }),
    metadata: metadataMap.default({}),
  })
  .strict()
  .meta({ id: 'CreateSessionRequest' });

export const session = z
  .object({
    session_id: sessionId,
    agent_id: agentId,
    tenant_id: z.string(),
    user_id: z.string(),
    name: z.string().nullable(),
    status: sessionStatus,
    metadata: z.record(z.string(), z.string()),
    created_at: isoDate,
    updated_at: isoDate,
    archived_at: isoDate.nullable(),
  })
  .meta({ id: 'Session' });

export const sessionPage = pageOf(session, 'SessionPage');

/** The filters of a list of sessions; the tenant-wide list adds `agent_id`. */
export const sessionListQuery = pageQuery
  .extend({
    user_id: z.string().min(1).max(200).optional().meta({ description: 'only the sessions of this user' }),
    status: sessionStatus.optional(),
    since: z.iso.datetime({ offset: true }).optional().meta({ description: 'sessions created at or after this time' }),
    until: z.iso.datetime({ offset: true }).optional().meta({ description: 'sessions created before this time' }),
  })
  .strict();
export const tenantSessionListQuery = sessionListQuery.extend({ agent_id: agentId.optional() }).strict();
export type SessionListQuery = z.infer<typeof tenantSessionListQuery>;
export const sessionParams = z.object({ session_id: sessionId }).strict();

const messageId = resourceId('msg', 'message id');
export const messageParams = z.object({ session_id: sessionId, message_id: messageId }).strict();

const messageRole = z.enum(['user', 'assistant', 'system', 'tool']);

export const createMessageBody = z
  .object({
    role: messageRole.default('user'),
    content: z.string().min(1).max(100_000),
    metadata: metadataMap.default({}),
  })
  .strict()
  .meta({ id: 'CreateMessageRequest' });

export const message = z
  .object({
    message_id: messageId,
    session_id: sessionId,
    role: messageRole,
    content: z.string(),
    metadata: z.record(z.string(), z.string()),
    created_at: isoDate,
  })
  .meta({ id: 'Message' });

export const messagePage = pageOf(message, 'MessagePage');

export type CreateSessionBody = z.infer<typeof createSessionBody>;
export type Session = z.infer<typeof session>;
export type CreateMessageBody = z.infer<typeof createMessageBody>;
export type Message = z.infer<typeof message>;
