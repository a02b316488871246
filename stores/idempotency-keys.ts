import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { randomToken } from '../common/ids';
import { isDuplicateKey } from './mongo';
import type { SecretBox } from './secret-box';

/** Whose key it is: a key is one client's (tenant and principal), never shared. */
export interface KeyScope {
  tenantId: string;
  /** `api_key:<key id>` or `jwt:<subject>`. */
  principal: string;
  key: string;
}

/** The first response to a key, as a repeat is answered. */
export interface KeptResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

type KeyState = 'in_progress' | 'done';

interface IdempotencyKeyDoc {
  _id: string;
  tenant_id: string;
  principal: string;
  /** SHA-256 of the request (method, path, canonical body): the same key with another request is refused. */
  fingerprint: string;
  /** Which claim this is: only its holder completes or releases it, never a later claim of the same key. */
  claim_id: string;
  state: KeyState;
  /** The first response, sealed with SECRETS_ENCRYPTION_KEY: it may show a secret once (`api_key`, `secret`). */
  response: string | null;
  created_at: Date;
  expires_at: Date;
}

/** What a claim decides from: the key's record. */
export type KeyRecord = Pick<IdempotencyKeyDoc, 'fingerprint' | 'state' | 'created_at' | 'expires_at'>;

/**
 * What a request with a key does: `run` (no live record: run and keep the response), `replay` (the
 * first response), `in_progress` (the first request is still running), `mismatch` (the key was
 * used with another request).
 */
export type KeyDecision = 'run' | 'replay' | 'in_progress' | 'mismatch';

/**
 * A claim whose request has run this long is taken for abandoned (its API process died before it
 * kept or released it) and the key may run again. Far beyond any request's own bounds (an attachment
 * is read within FILE_PARSE_TIMEOUT_MS, at most 10 minutes), so no live request is run twice.
 */
export const ABANDONED_CLAIM_MS = 15 * 60_000;

export function decideOnKey(record: KeyRecord | null, fingerprint: string, now: Date): KeyDecision {
  if (!record || record.expires_at <= now) return 'run';
  if (record.state === 'in_progress' && now.getTime() - record.created_at.getTime() >= ABANDONED_CLAIM_MS) return 'run';
  if (record.fingerprint !== fingerprint) return 'mismatch';
  return record.state === 'done' ? 'replay' : 'in_progress';
}

/** A claim held by the request that runs: completed with its response, or released. */
export interface KeyClaim {
  id: string;
  claimId: string;
}

export type ClaimOutcome =
  | { outcome: 'claimed'; claim: KeyClaim }
  | { outcome: 'replay'; response: KeptResponse }
  | { outcome: 'in_progress' }
  | { outcome: 'mismatch' };

const docId = (scope: KeyScope) =>
  createHash('sha256')
    .update(JSON.stringify([scope.tenantId, scope.principal, scope.key]))
    .digest('hex');

/**
 * Idempotency keys: one document per (tenant, principal, key) under a derived `_id`, so two API
 * processes racing on one key both insert and the database's unique `_id` lets one of them run.
 * Expired records count as absent and are purged by the maintenance run (no TTL indexes on FerretDB).
 */
export function createIdempotencyKeyStore(db: Db, secretBox: SecretBox, { ttlMs }: { ttlMs: number }) {
  const keys = db.collection<IdempotencyKeyDoc>('idempotency_keys');

  return {
    async claim(scope: KeyScope, fingerprint: string, now = new Date()): Promise<ClaimOutcome> {
      const id = docId(scope);
      // A dead record is removed and the insert tried again; a rival that keeps winning the insert is running the key.
      for (let attempt = 0; attempt < 3; attempt++) {
        const claimId = randomToken(16);
        try {
          await keys.insertOne({
            _id: id,
            tenant_id: scope.tenantId,
            principal: scope.principal,
            fingerprint,
            claim_id: claimId,
            state: 'in_progress',
            response: null,
            created_at: now,
            expires_at: new Date(now.getTime() + ttlMs),
          });
          return { outcome: 'claimed', claim: { id, claimId } };
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
        const record = await keys.findOne({ _id: id });
        const decision = decideOnKey(record, fingerprint, now);
        if (decision === 'replay' && record?.response) {
          return { outcome: 'replay', response: JSON.parse(secretBox.open(record.response)) as KeptResponse };
        }
        if (decision === 'in_progress' || decision === 'mismatch') return { outcome: decision };
        // Only that very record: a rival may have replaced it with a live claim meanwhile.
        if (record) await keys.deleteOne({ _id: id, claim_id: record.claim_id });
      }
      return { outcome: 'in_progress' };
    },

    /** Keeps the response for repeats; a claim taken over meanwhile (expired, abandoned) is left alone. */
    async complete(claim: KeyClaim, response: KeptResponse): Promise<void> {
      await keys.updateOne(
        { _id: claim.id, claim_id: claim.claimId },
        { $set: { state: 'done', response: secretBox.seal(JSON.stringify(response)) } },
      );
    },

    /** Forgets the claim (the request failed on the server's side): a retry runs again. */
    async release(claim: KeyClaim): Promise<void> {
      await keys.deleteOne({ _id: claim.id, claim_id: claim.claimId });
    },

    /** Deletes records whose window ended (maintenance); their sealed responses go with them. */
    async purgeExpired(now = new Date()): Promise<number> {
      const { deletedCount } = await keys.deleteMany({ expires_at: { $lt: now } });
      return deletedCount;
    },
  };
}

export type IdempotencyKeyStore = ReturnType<typeof createIdempotencyKeyStore>;
