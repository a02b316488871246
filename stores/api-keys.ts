import { createHash, timingSafeEqual } from 'node:crypto';
import type { Db, Filter } from 'mongodb';
import { notFound } from '../common/errors';
import { randomToken } from '../common/ids';
import type { ApiKey, Role } from '../common/schemas/api-keys';
import { isDuplicateKey } from './mongo';
import { findPage, type PageRequest } from './pagination';

/**
 * API keys look like `combo_<8-char id>_<32-char secret>`. Only a SHA-256 hash of the whole key is
 * stored (the key is 190 bits of randomness, so a slow hash adds nothing); the id part finds the
 * record and the hashes are compared in constant time.
 */
const API_KEY_PREFIX = 'combo_';
const KEY_PATTERN = /^combo_([A-Za-z0-9]{8})_([A-Za-z0-9]{32})$/;

interface ApiKeyDoc {
  _id: string;
  tenant_id: string;
  /** The user the key belongs to; absent on keys made before keys were personal (they own themselves). */
  owner_id?: string;
  name: string;
  role: Role;
  secret_hash: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface VerifiedKey {
  keyId: string;
  tenantId: string;
  ownerId: string;
  role: Role;
  expiresAt: Date | null;
}

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
const ownerOf = (d: ApiKeyDoc) => d.owner_id ?? d._id;
/** The keys of one owner, older keys (no owner_id) being their own owner. */
const ownedBy = (ownerId: string): Filter<ApiKeyDoc> => ({
  $or: [{ owner_id: ownerId }, { owner_id: { $exists: false }, _id: ownerId }],
});
const isLive = (d: ApiKeyDoc, now: Date) => !d.revoked_at && !(d.expires_at && d.expires_at <= now);

export interface KeyListFilter {
  /** Only this owner's keys; undefined: every key of the tenant. */
  ownerId?: string;
}
export const looksLikeApiKey = (token: string) => token.startsWith(API_KEY_PREFIX);

const verified = (doc: ApiKeyDoc): VerifiedKey => ({
  keyId: doc._id,
  tenantId: doc.tenant_id,
  ownerId: ownerOf(doc),
  role: doc.role,
  expiresAt: doc.expires_at,
});

const present = (d: ApiKeyDoc): ApiKey => ({
  key_id: d._id,
  owner_id: ownerOf(d),
  name: d.name,
  role: d.role,
  prefix: `${API_KEY_PREFIX}${d._id.slice(4)}`,
  created_at: d.created_at.toISOString(),
  expires_at: d.expires_at?.toISOString() ?? null,
  revoked_at: d.revoked_at?.toISOString() ?? null,
});

export function createApiKeyStore(db: Db) {
  const keys = db.collection<ApiKeyDoc>('api_keys');

  return {
    async create(tenantId: string, ownerId: string, input: { name: string; role: Role; expires_at?: string }) {
      const short = randomToken(8);
      const secret = `${API_KEY_PREFIX}${short}_${randomToken(32)}`;
      const doc: ApiKeyDoc = {
        _id: `key_${short}`,
        tenant_id: tenantId,
        owner_id: ownerId,
        name: input.name,
        role: input.role,
        secret_hash: hashKey(secret),
        created_at: new Date(),
        expires_at: input.expires_at ? new Date(input.expires_at) : null,
        revoked_at: null,
      };
      await keys.insertOne(doc);
      return { ...present(doc), api_key: secret };
    },

    /** Makes sure the operator-supplied bootstrap key exists; a revoked one stays revoked. */
    async ensureBootstrap(tenantId: string, secret: string): Promise<void> {
      const match = KEY_PATTERN.exec(secret);
      if (!match) throw new TypeError('bootstrap key has the wrong format');
      try {
        await keys.insertOne({
          _id: `key_${match[1]}`,
          tenant_id: tenantId,
          name: 'bootstrap',
          role: 'admin',
          secret_hash: hashKey(secret),
          created_at: new Date(),
          expires_at: null,
          revoked_at: null,
        });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    },

    /** Null for anything that is not a live key: unknown, wrong secret, revoked or expired. */
    async verify(secret: string, now = new Date()): Promise<VerifiedKey | null> {
      const match = KEY_PATTERN.exec(secret);
      if (!match) return null;
      const doc = await keys.findOne({ _id: `key_${match[1]}` });
      if (!doc) return null;
      const given = Buffer.from(hashKey(secret), 'hex');
      const stored = Buffer.from(doc.secret_hash, 'hex');
      if (given.length !== stored.length || !timingSafeEqual(given, stored)) return null;
      if (!isLive(doc, now)) return null;
      return verified(doc);
    },

    /** The key behind a console token, if it still works: revoking or expiring a key ends its tokens. */
    async liveKey(keyId: string, now = new Date()): Promise<VerifiedKey | null> {
      const doc = await keys.findOne({ _id: keyId });
      return doc && isLive(doc, now) ? verified(doc) : null;
    },

    list: (tenantId: string, filter: KeyListFilter, page: PageRequest) =>
      findPage(keys, { tenant_id: tenantId, ...(filter.ownerId === undefined ? {} : ownedBy(filter.ownerId)) }, page, present),

    /** Revokes a key of the tenant (of one owner when `filter.ownerId` is given); 10004 otherwise. */
    async revoke(tenantId: string, keyId: string, filter: KeyListFilter = {}): Promise<ApiKey> {
      const doc = await keys.findOneAndUpdate(
        { _id: keyId, tenant_id: tenantId, ...(filter.ownerId === undefined ? {} : ownedBy(filter.ownerId)) },
        { $set: { revoked_at: new Date() } },
        { returnDocument: 'after' },
      );
      if (!doc) throw notFound('api key', keyId);
      return present(doc);
    },
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
