import { AppError, ErrorCodes, invalid } from '../common/errors';
import type { CreateTriggerBody, EventTrigger, TriggerConfig, TriggerPreviewBody, UpdateTriggerBody } from '../common/schemas/triggers';
import type { AgentStore } from '../stores/agents';
import type { IntegrationStore } from '../stores/integrations';
import type { TriggerStore } from '../stores/triggers';
import { previewTrigger, type TriggerPreview } from '../triggers/preview';

/**
 * Event triggers: saved (and previewed) only when what they name exists: their agent, and an
 * integration of the tenant on their channel (10001 naming the field otherwise).
 */
export function createTriggerCommands({
  triggers,
  agents,
  integrations,
}: {
  triggers: TriggerStore;
  agents: Pick<AgentStore, 'get'>;
  integrations: Pick<IntegrationStore, 'get'>;
}) {
  /** A trigger whose agent does not exist could never run: refused here, naming the field. */
  async function checkAgent(tenantId: string, config: TriggerConfig): Promise<void> {
    try {
      await agents.get(tenantId, config.action.agent_id);
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCodes.NOT_FOUND) {
        throw invalid(`body.trigger.action.agent_id: agent ${config.action.agent_id} does not exist`, {
          field: 'body.trigger.action.agent_id',
        });
      }
      throw err;
    }
    if (config.integration_id) await checkIntegration(tenantId, config.integration_id, config.source, 'body.trigger.integration_id');
  }

  /** A trigger can only hear an integration of its tenant and channel (and a previewed sample only arrive through one). */
  async function checkIntegration(tenantId: string, integrationId: string, channel: TriggerConfig['source'], field: string): Promise<void> {
    const found = await integrations.get(tenantId, integrationId).catch((err: unknown) => {
      if (err instanceof AppError && err.code === ErrorCodes.NOT_FOUND) return null;
      throw err;
    });
    if (!found) throw invalid(`${field}: integration ${integrationId} does not exist`, { field });
    if (found.channel !== channel)
      throw invalid(`${field}: integration ${integrationId} is on channel ${found.channel}, not ${channel}`, { field });
  }

  return {
    async create(tenantId: string, body: CreateTriggerBody): Promise<EventTrigger> {
      await checkAgent(tenantId, body.trigger);
      return triggers.create(tenantId, body);
    },

    /** Fields present replace the stored ones (`trigger` as a whole). */
    async update(tenantId: string, triggerId: string, body: UpdateTriggerBody): Promise<EventTrigger> {
      await triggers.get(tenantId, triggerId);
      if (body.trigger) await checkAgent(tenantId, body.trigger);
      return triggers.update(tenantId, triggerId, body);
    },

    /** What an inbound call would do with a sample, through the same code; nothing is started or stored. */
    async preview(tenantId: string, body: TriggerPreviewBody): Promise<TriggerPreview> {
      const source = body.source ?? body.trigger.source;
      await checkAgent(tenantId, body.trigger);
      if (body.integration_id) await checkIntegration(tenantId, body.integration_id, source, 'body.integration_id');
      return previewTrigger({
        tenantId,
        source,
        trigger: body.trigger,
        enabled: body.enabled,
        payload: body.payload,
        headers: body.headers,
        eventId: body.event_id,
        integrationId: body.integration_id ?? body.trigger.integration_id,
        receivedAt: new Date(),
      });
    },
  };
}
