import type { Db } from 'mongodb';
import { conflict, notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { ModelProviderKind, OfferedModel, ProviderConnection } from '../common/model-provider';
import type { CreateProviderBody, ModelProvider, UpdateProviderBody } from '../common/schemas/model-providers';
import { isDuplicateKey } from './mongo';
import { findPage, type NamedPageRequest, tenantNamed } from './pagination';
import type { SecretBox } from './secret-box';

const MODEL_PROVIDERS = 'model_providers';

type StoredModel = CreateProviderBody['models'][number];

interface ModelProviderDoc {
  _id: string;
  tenant_id: string;
  /** Unique in the tenant (a unique index). */
  name: string;
  kind: ModelProviderKind;
  base_url: string | null;
  api_key_sealed: string | null;
  api_key_last4: string | null;
  /** The headers' JSON object, sealed whole: their values may be credentials. */
  headers_sealed: string | null;
  header_names: string[];
  /** As the API shows them; `connection` hands them on as OfferedModel. */
  models: StoredModel[];
  created_at: Date;
  updated_at: Date;
}

/** The stored state a change is made from: the command checks the merged result, then writes it if nothing changed meanwhile. */
export interface ProviderRevision {
  provider: ModelProvider;
  updatedAt: Date;
}

const toOffered = (m: StoredModel): OfferedModel => ({
  id: m.id,
  ...(m.input_price_per_million !== undefined ? { inputPricePerMillion: m.input_price_per_million } : {}),
  ...(m.output_price_per_million !== undefined ? { outputPricePerMillion: m.output_price_per_million } : {}),
});

const present = (d: ModelProviderDoc): ModelProvider => ({
  provider_id: d._id,
  name: d.name,
  kind: d.kind,
  base_url: d.base_url,
  api_key_last4: d.api_key_last4,
  header_names: d.header_names,
  models: d.models,
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
});

const duplicateName = (name: string) => conflict(`a model provider named ${JSON.stringify(name)} already exists`, { name });

/**
 * A tenant's model providers. The API key and the headers are sealed with the secret box (as
 * webhook secrets are) and opened only by `connection`, for the code that calls the provider.
 */
/** A short key's last four characters would show most of it: those show as `****`. */
const lastFourOf = (apiKey: string) => (apiKey.length >= 12 ? apiKey.slice(-4) : '****');

export function createModelProviderStore(db: Db, secretBox: SecretBox) {
  const providers = db.collection<ModelProviderDoc>(MODEL_PROVIDERS);

  const sealedKey = (apiKey: string | null | undefined) =>
    apiKey ? { api_key_sealed: secretBox.seal(apiKey), api_key_last4: lastFourOf(apiKey) } : { api_key_sealed: null, api_key_last4: null };
  const sealedHeaders = (headers: Record<string, string>) => ({
    headers_sealed: Object.keys(headers).length > 0 ? secretBox.seal(JSON.stringify(headers)) : null,
    header_names: Object.keys(headers),
  });

  async function getDoc(tenantId: string, providerId: string): Promise<ModelProviderDoc> {
    const doc = await providers.findOne({ _id: providerId, tenant_id: tenantId });
    if (!doc) throw notFound('model provider', providerId);
    return doc;
  }

  return {
    async create(tenantId: string, body: CreateProviderBody): Promise<ModelProvider> {
      const now = new Date();
      const doc: ModelProviderDoc = {
        _id: newId('mp'),
        tenant_id: tenantId,
        name: body.name,
        kind: body.kind,
        base_url: body.base_url ?? null,
        ...sealedKey(body.api_key),
        ...sealedHeaders(body.headers),
        models: body.models,
        created_at: now,
        updated_at: now,
      };
      try {
        await providers.insertOne(doc);
      } catch (err) {
        if (isDuplicateKey(err)) throw duplicateName(body.name);
        throw err;
      }
      return present(doc);
    },

    list: (tenantId: string, query: NamedPageRequest) => findPage(providers, tenantNamed(tenantId, query), query, present),

    get: async (tenantId: string, providerId: string): Promise<ModelProvider> => present(await getDoc(tenantId, providerId)),

    /** The provider as stored now, with the mark `update` checks to apply a change only to this state. */
    async revision(tenantId: string, providerId: string): Promise<ProviderRevision> {
      const doc = await getDoc(tenantId, providerId);
      return { provider: present(doc), updatedAt: doc.updated_at };
    },

    /**
     * Applies the changes to the revision they were checked against: a change made meanwhile
     * (another update, a delete) makes this one 10005. Fields absent are kept; `null` removes.
     */
    async update(tenantId: string, revision: ProviderRevision, changes: UpdateProviderBody): Promise<ModelProvider> {
      const providerId = revision.provider.provider_id;
      const set: Partial<ModelProviderDoc> = { updated_at: new Date() };
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.kind !== undefined) set.kind = changes.kind;
      if (changes.base_url !== undefined) set.base_url = changes.base_url;
      if (changes.api_key !== undefined) Object.assign(set, sealedKey(changes.api_key));
      if (changes.headers !== undefined) Object.assign(set, sealedHeaders(changes.headers));
      if (changes.models !== undefined) set.models = changes.models;
      let doc: ModelProviderDoc | null;
      try {
        doc = await providers.findOneAndUpdate(
          { _id: providerId, tenant_id: tenantId, updated_at: revision.updatedAt },
          { $set: set },
          { returnDocument: 'after' },
        );
      } catch (err) {
        if (isDuplicateKey(err) && changes.name !== undefined) throw duplicateName(changes.name);
        throw err;
      }
      if (!doc)
        throw conflict(`model provider ${providerId} was changed or deleted at the same time; try again`, { provider_id: providerId });
      return present(doc);
    },

    async delete(tenantId: string, providerId: string): Promise<void> {
      const { deletedCount } = await providers.deleteOne({ _id: providerId, tenant_id: tenantId });
      if (deletedCount === 0) throw notFound('model provider', providerId);
    },

    /**
     * What the code calling the provider needs, secrets opened: one read by `_id` (the tenant's
     * provider only; another tenant's does not exist for it, 10004). The only place they are opened.
     */
    async connection(tenantId: string, providerId: string): Promise<ProviderConnection> {
      const doc = await getDoc(tenantId, providerId);
      return {
        providerId: doc._id,
        kind: doc.kind,
        ...(doc.base_url ? { baseUrl: doc.base_url } : {}),
        ...(doc.api_key_sealed ? { apiKey: secretBox.open(doc.api_key_sealed) } : {}),
        headers: doc.headers_sealed ? (JSON.parse(secretBox.open(doc.headers_sealed)) as Record<string, string>) : {},
        models: doc.models.map(toOffered),
      };
    },
  };
}

export type ModelProviderStore = ReturnType<typeof createModelProviderStore>;
