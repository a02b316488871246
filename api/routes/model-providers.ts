import { deletedResult, namedPageQuery } from '../../common/schemas/common';
import {
  checkProviderBody,
  createProviderBody,
  modelProvider,
  modelProviderPage,
  providerCheck,
  providerParams,
  updateProviderBody,
} from '../../common/schemas/model-providers';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Model providers';

const URL_RULE =
  '`base_url` must reach public addresses (10001 otherwise) unless the installation sets ALLOW_PRIVATE_URLS or lists its host ' +
  'in MODEL_PROVIDER_PRIVATE_HOSTS (a local Ollama); `openai-compatible` requires one.';

const SECRETS =
  'The API key and the header values are stored encrypted and never shown again: replies carry `api_key_last4` and `header_names`.';

export const modelProviderRoutes = ({ modelProviders, commands }: Services) => [
  defineRoute({
    method: 'post',
    path: '/v1/model-providers',
    operationId: 'createModelProvider',
    tag,
    access: 'admin',
    summary: 'Add a model provider agents can use',
    description:
      `An API of a kind (\`openai\`, \`anthropic\`, \`google\`, \`openai-compatible\`), its key, extra headers and the models it offers ` +
      `(with prices per million tokens, when known). Agents name it in \`model.provider_id\`; agents that name none use the ` +
      `installation's default provider (LLM_*). ${URL_RULE} ${SECRETS} A name the tenant already uses is 10005.`,
    body: createProviderBody,
    response: modelProvider,
    handler: ({ principal, body }) => commands.modelProviders.create(principal.tenantId, body),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/model-providers',
    operationId: 'listModelProviders',
    tag,
    access: 'admin',
    summary: "List the tenant's model providers, newest first (without secrets)",
    query: namedPageQuery,
    response: modelProviderPage,
    handler: ({ principal, query }) => modelProviders.list(principal.tenantId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/model-providers/{provider_id}',
    operationId: 'getModelProvider',
    tag,
    access: 'admin',
    summary: 'Get one model provider (without secrets)',
    params: providerParams,
    response: modelProvider,
    handler: ({ principal, params }) => modelProviders.get(principal.tenantId, params.provider_id),
  }),
  defineRoute({
    method: 'put',
    path: '/v1/model-providers/{provider_id}',
    operationId: 'updateModelProvider',
    tag,
    access: 'admin',
    summary: 'Update a model provider',
    description:
      'Fields present in the body replace the stored ones; absent fields are kept. `api_key: null` removes the key, ' +
      '`base_url: null` the base URL; `headers` and `models` replace the whole set. Removing a model that agents name is 10005 ' +
      `naming them (\`data.agent_ids\`, the first 20; \`data.agent_count\`). ${URL_RULE} ${SECRETS}`,
    params: providerParams,
    body: updateProviderBody,
    response: modelProvider,
    handler: ({ principal, params, body }) => commands.modelProviders.update(principal.tenantId, params.provider_id, body),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/model-providers/{provider_id}',
    operationId: 'deleteModelProvider',
    tag,
    access: 'admin',
    summary: 'Delete a model provider',
    description:
      'Refused with 10005 while agents name it in `model.provider_id`: the message names them, `data.agent_ids` lists the first 20 ' +
      'and `data.agent_count` counts them all. Point them at another provider (or none) first.',
    params: providerParams,
    response: deletedResult,
    handler: async ({ principal, params }) => {
      await commands.modelProviders.remove(principal.tenantId, params.provider_id);
      return { deleted: true as const };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/model-providers/{provider_id}/check',
    operationId: 'checkModelProvider',
    tag,
    access: 'admin',
    summary: 'Call the provider once and say how long it took',
    description:
      'Makes the smallest call the provider allows (a one-token answer) to `model`, or to its first model, with the stored key ' +
      "and headers. Answers the latency; a failure of the provider is 30001 with the upstream's message.",
    params: providerParams,
    body: checkProviderBody,
    response: providerCheck,
    upstreamErrors: true,
    handler: ({ principal, params, body }) => commands.modelProviders.check(principal.tenantId, params.provider_id, body),
  }),
];
