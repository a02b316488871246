import type { Client } from '@temporalio/client';
import type { Config } from '../common/config';
import { invalid, unauthenticated } from '../common/errors';
import type { Logger } from '../common/logger';
import type { InboundAccepted, IntegrationChannel } from '../common/schemas/integrations';
import type { EventTrigger } from '../common/schemas/triggers';
import { signatureMatches } from '../common/signature';
import type { IntegrationStore } from '../stores/integrations';
import type { TriggerStore } from '../stores/triggers';
import { agentTaskFor } from '../triggers/agent-task-plan';
import { normaliseInbound } from '../triggers/channels';
import { readInboundBody } from '../triggers/inbound-body';
import type { DispatchedTask, InboundEvent, TriggerDispatcher } from '../common/inbound-event';
import { triggerMatches } from '../triggers/match';
import { agentTaskWorkflowId } from '../common/agent-task-ids';
import { startTriggeredAgentTask } from './workflow-starts';

const MAX_EVENT_ID_CHARS = 200;
const INTEGRATION_ID = /^int_[A-Za-z0-9]{1,64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/** An inbound call as it arrived: the channel, who claims to sign it, its headers and its bytes. */
export interface InboundCall {
  channel: IntegrationChannel;
  /** `?integration_id=`, else the X-Combo-Integration header. */
  integrationId: string | undefined;
  /** The generic channel's trigger, from the path. */
  triggerId?: string;
  eventId: string;
  timestamp: string;
  signature: string;
  contentEncoding: string;
  charset: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** The request's trace id, for the debug log of a refusal. */
  traceId: string;
  /** Called once the signature has verified: signed calls count against their integration's ceiling. */
  onVerified?: () => Promise<void>;
}

/** Inbound events: each matching (trigger, event id) starts one agent task workflow. */
export function createInboundCommands({
  triggers,
  integrations,
  temporal,
  config,
  log,
}: {
  triggers: TriggerStore;
  integrations: IntegrationStore;
  temporal: Client;
  config: Config;
  log: Logger;
}): TriggerDispatcher & { receive(call: InboundCall): Promise<InboundAccepted> } {
  async function start(tenantId: string, trigger: EventTrigger, event: InboundEvent): Promise<DispatchedTask> {
    const workflowId = agentTaskWorkflowId(trigger.trigger_id, event.event_id);
    const planned = agentTaskFor(tenantId, trigger, event);
    if ('error' in planned) return { trigger_id: trigger.trigger_id, workflow_id: workflowId, started: false, error: planned.error };
    const started = await startTriggeredAgentTask(temporal, config.TEMPORAL_TASK_QUEUE, trigger.trigger_id, event, planned.task);
    return { trigger_id: trigger.trigger_id, workflow_id: workflowId, started };
  }

  /** The same answer whatever failed, so a caller learns nothing; the reason goes to the debug log. */
  function refuse(call: InboundCall, reason: string, integrationId?: string): never {
    log.debug('inbound webhook refused', { trace_id: call.traceId, channel: call.channel, reason, integration_id: integrationId });
    throw unauthenticated('signature verification failed');
  }

  /** The integration whose secret signed the call; every failure is the same 10002 (a missing event id is 10001). */
  async function verify(call: InboundCall, receivedAt: Date) {
    const { integrationId } = call;
    if (!integrationId || !INTEGRATION_ID.test(integrationId)) refuse(call, 'no integration id, or not an int_ id');
    const verifier = await integrations.verifierOf(integrationId);
    if (!verifier || verifier.channel !== call.channel) refuse(call, 'no such integration on this channel', integrationId);
    if (!call.eventId || call.eventId.length > MAX_EVENT_ID_CHARS) {
      throw invalid(`the X-Combo-Event-Id header is required (1-${MAX_EVENT_ID_CHARS} characters)`, { field: 'header.X-Combo-Event-Id' });
    }
    if (!UNIX_SECONDS.test(call.timestamp)) refuse(call, 'timestamp missing or not an integer', integrationId);
    const skew = Math.abs(receivedAt.getTime() / 1000 - Number(call.timestamp));
    if (skew > config.INBOUND_TIMESTAMP_TOLERANCE_S) refuse(call, `timestamp ${Math.round(skew)} s from the server clock`, integrationId);
    // Every secret is tried (no early exit), so the timing does not tell which one matched.
    const matches = verifier.secrets.map((secret) => signatureMatches(secret, call.timestamp, call.rawBody, call.signature));
    if (!matches.includes(true)) refuse(call, call.signature ? 'signature mismatch' : 'no signature', integrationId);
    return { integrationId, tenantId: verifier.tenantId };
  }

  const dispatcher: TriggerDispatcher = {
    async dispatch(tenantId, event, options = {}) {
      const candidates = options.triggerId
        ? [await triggers.get(tenantId, options.triggerId)]
        : await triggers.enabledForSource(tenantId, event.source);
      const matching = candidates.filter((t) => triggerMatches({ enabled: t.enabled, ...t.trigger }, event, options.integrationId));
      // Every match is started even when one start fails; the sender's retry then starts only what is missing.
      const outcomes = await Promise.allSettled(matching.map((t) => start(tenantId, t, event)));
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
      return outcomes.map((o) => (o as PromiseFulfilledResult<DispatchedTask>).value);
    },
  };

  return {
    ...dispatcher,

    /**
     * An inbound call, whole: verified (integration, event id, timestamp, signature), its body read
     * and normalised into an event, recorded once per event id (a repeat is acknowledged as a
     * duplicate and starts nothing), and dispatched to the matching triggers. A failed dispatch
     * forgets the event id again, so the sender's retry is not taken for a duplicate.
     */
    async receive(call: InboundCall): Promise<InboundAccepted> {
      const receivedAt = new Date();
      const { integrationId, tenantId } = await verify(call, receivedAt);
      await call.onVerified?.();
      const body = readInboundBody(call.rawBody, {
        contentEncoding: call.contentEncoding,
        charset: call.charset,
        maxBytes: config.MAX_JSON_BODY_BYTES,
      });
      const event = normaliseInbound(call.channel, call.headers, body.payload, call.eventId, receivedAt);
      const { payload: _payload, ...summary } = event;
      const fresh = await integrations.recordInbound(integrationId, tenantId, event, body.text, call.triggerId ?? null);
      if (!fresh) return { ...summary, duplicate: true, tasks: [] };
      let tasks: DispatchedTask[];
      try {
        tasks = await dispatcher.dispatch(tenantId, event, { integrationId, ...(call.triggerId ? { triggerId: call.triggerId } : {}) });
      } catch (err) {
        await integrations.forgetInbound(integrationId, call.eventId).catch((forgetErr: unknown) =>
          log.warn('inbound event id kept after a failed dispatch; a retry will count as a duplicate', {
            trace_id: call.traceId,
            integration_id: integrationId,
            error: String(forgetErr),
          }),
        );
        throw err;
      }
      await integrations.recordDispatched(integrationId, call.eventId, tasks).catch((err: unknown) =>
        log.warn('could not record the tasks an inbound event started', {
          trace_id: call.traceId,
          integration_id: integrationId,
          error: String(err),
        }),
      );
      return { ...summary, duplicate: false, tasks };
    },
  };
}
