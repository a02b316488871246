import type { Config } from '../common/config';
import { conflict, invalid } from '../common/errors';
import type { ProviderConnection } from '../common/model-provider';
import { providerUrlAllowsPrivate } from '../common/net/private-hosts';
import { assertPublicHttpUrl, UnsafeUrlError } from '../common/net/url-guard';
import type { CreateProviderBody, ModelProvider, ProviderCheck, UpdateProviderBody } from '../common/schemas/model-providers';
import type { AgentStore } from '../stores/agents';
import type { ModelProviderStore } from '../stores/model-providers';

/**
 * Makes the smallest call the provider allows to `model` and says how long it took; on failure an
 * AppError 30001 carrying the upstream's message (upstream/models/provider-check.ts; commands/index.ts builds it).
 */
type CheckProvider = (connection: ProviderConnection, model: string) => Promise<{ latencyMs: number; model: string }>;

/** At most this many agent ids are named in a refusal (the message and `details` say how many there are in all). */
const NAMED_AGENTS_MAX = 20;

const namedAgents = ({ total, agentIds }: { total: number; agentIds: string[] }) =>
  `${total} agent(s): ${agentIds.join(', ')}${total > agentIds.length ? `, and ${total - agentIds.length} more` : ''}`;

export interface ModelProviderCommandDeps {
  modelProviders: ModelProviderStore;
  agents: Pick<AgentStore, 'usingProvider'>;
  config: Pick<Config, 'ALLOW_PRIVATE_URLS' | 'MODEL_PROVIDER_PRIVATE_HOSTS'>;
  checkProvider: CheckProvider;
}

/**
 * Model providers: their URL must reach public addresses, or a private host the operator allows
 * (MODEL_PROVIDER_PRIVATE_HOSTS); agents must not be left naming a provider or a model that is gone.
 */
export function createModelProviderCommands({ modelProviders, agents, config, checkProvider }: ModelProviderCommandDeps) {
  async function checkBaseUrl(url: string): Promise<void> {
    try {
      await assertPublicHttpUrl(url, providerUrlAllowsPrivate(url, config));
    } catch (err) {
      if (err instanceof UnsafeUrlError)
        throw invalid(`body.base_url: ${err.message} (MODEL_PROVIDER_PRIVATE_HOSTS lists the private hosts providers may use)`, {
          field: 'body.base_url',
        });
      throw err;
    }
  }

  return {
    async create(tenantId: string, body: CreateProviderBody): Promise<ModelProvider> {
      if (body.base_url !== undefined) await checkBaseUrl(body.base_url);
      return modelProviders.create(tenantId, body);
    },

    /**
     * Checked against the provider as it will be (an `openai-compatible` one keeps a base URL);
     * dropping a model that agents name is 10005 naming them.
     */
    async update(tenantId: string, providerId: string, body: UpdateProviderBody): Promise<ModelProvider> {
      const revision = await modelProviders.revision(tenantId, providerId);
      const kind = body.kind ?? revision.provider.kind;
      const baseUrl = body.base_url === undefined ? revision.provider.base_url : body.base_url;
      if (kind === 'openai-compatible' && baseUrl === null)
        throw invalid('body.base_url: is required for kind openai-compatible', { field: 'body.base_url' });
      if (body.base_url) await checkBaseUrl(body.base_url);
      if (body.models) {
        const stranded = await agents.usingProvider(tenantId, providerId, {
          limit: NAMED_AGENTS_MAX,
          onlyModelsOutside: body.models.map((m) => m.id),
        });
        if (stranded.total > 0)
          throw conflict(
            `body.models: ${namedAgents(stranded)} use a model this change removes from provider ${providerId}; change their model first`,
            { provider_id: providerId, agent_ids: stranded.agentIds, agent_count: stranded.total },
          );
      }
      return modelProviders.update(tenantId, revision, body);
    },

    /**
     * Refused (10005 naming them) while agents name the provider: their runs would fail. An agent
     * saved while the delete runs passed its check before the provider went; its runs answer 10004.
     */
    async remove(tenantId: string, providerId: string): Promise<void> {
      await modelProviders.get(tenantId, providerId);
      const using = await agents.usingProvider(tenantId, providerId, { limit: NAMED_AGENTS_MAX });
      if (using.total > 0)
        throw conflict(`model provider ${providerId} is used by ${namedAgents(using)}; point them at another provider first`, {
          provider_id: providerId,
          agent_ids: using.agentIds,
          agent_count: using.total,
        });
      await modelProviders.delete(tenantId, providerId);
    },

    /** Calls `model` (one the provider offers; default its first) once. */
    async check(tenantId: string, providerId: string, { model }: { model?: string }): Promise<ProviderCheck> {
      const connection = await modelProviders.connection(tenantId, providerId);
      const chosen = model ?? connection.models[0]!.id;
      if (!connection.models.some((m) => m.id === chosen))
        throw invalid(`body.model: provider ${providerId} does not offer ${chosen}`, { field: 'body.model' });
      const checked = await checkProvider(connection, chosen);
      return { ok: true, latency_ms: Math.round(checked.latencyMs), model: checked.model };
    },
  };
}
