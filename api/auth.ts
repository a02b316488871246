import * as nodeCrypto from 'node:crypto';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { errors as joseErrors, type JWTPayload, jwtVerify } from 'jose';
import { z } from 'zod';
import type { Config } from '../common/config';
import { AppError, unauthenticated } from '../common/errors';
import type { Role } from '../common/schemas/api-keys';
import { type ApiKeyStore, looksLikeApiKey, type VerifiedKey } from '../stores/api-keys';
import { type ConsoleClaims, type ConsoleTokens, isConsoleToken } from './console-tokens';

/** Who is calling: every request that passes authentication carries one. */
export interface Principal {
  tenantId: string;
  /** The API key's id for key calls, the token's subject for JWT calls (scopes idempotency keys, defaults sessions' user_id). */
  userId: string;
  /** The person behind the call: the key's owner, or the token's subject. Personal keys are managed by it. */
  ownerId: string;
  role: Role;
  via: 'api_key' | 'jwt';
  /** The API key used, directly or behind a console token; absent for an identity provider's token. */
  keyId?: string;
  /** When the credential stops working on its own (key expiry); null: never. */
  keyExpiresAt?: Date | null;
  /** What rate limits count against: the API key, or the console user. */
  rateKey: string;
}

/** The caller as the completion commands know it: Idempotency-Keys are per tenant and principal. */
export const callerOf = (principal: Principal) => ({
  tenantId: principal.tenantId,
  principal: `${principal.via}:${principal.userId}`,
  ownerId: principal.ownerId,
});

/** Console tokens carry the tenant, the user (`sub`) and the roles. */
const jwtClaims = z.object({
  sub: z.string().min(1),
  tenant_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  roles: z.array(z.string()).default([]),
});

/**
 * SHA-256 of a presented key, the cache's key (the clear key is never kept). crypto.hash (Node
 * 20.12+) takes half the time of a Hash object, which showed in a profile of authenticated calls;
 * older Node within `engines` uses the Hash object.
 */
const oneShotHash = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
const sha256 = (text: string): string =>
  oneShotHash ? oneShotHash('sha256', text, 'base64') : nodeCrypto.createHash('sha256').update(text).digest('base64');

interface CachedPrincipal {
  principal: Principal;
  until: number;
}

export function createAuthenticator(config: Config, apiKeys: ApiKeyStore, consoleTokens: ConsoleTokens) {
  const jwtKey: Uint8Array | KeyObject | undefined = config.JWT_PUBLIC_KEY
    ? createPublicKey(config.JWT_PUBLIC_KEY)
    : config.JWT_SECRET
      ? new TextEncoder().encode(config.JWT_SECRET)
      : undefined;
  const algorithms = config.JWT_PUBLIC_KEY ? ['RS256', 'ES256', 'EdDSA'] : ['HS256'];
  // Verified keys are trusted for AUTH_CACHE_TTL_MS; the cache is keyed by the key's hash, never the key.
  const cache = new Map<string, CachedPrincipal>();
  /** Keys behind console tokens, found live, trusted for AUTH_CACHE_TTL_MS like keys themselves. */
  const liveKeys = new Map<string, { key: VerifiedKey; until: number }>();

  /** A key verified within AUTH_CACHE_TTL_MS (and not expired) answers at once, without a promise. */
  function fromApiKey(token: string): Principal | Promise<Principal> {
    const cacheKey = sha256(token);
    const cached = cache.get(cacheKey);
    const now = Date.now();
    if (cached && cached.until > now) return cached.principal;
    return verifyApiKey(token, cacheKey, now);
  }

  async function verifyApiKey(token: string, cacheKey: string, now: number): Promise<Principal> {
    const key = await apiKeys.verify(token);
    if (!key) {
      cache.delete(cacheKey);
      throw unauthenticated('invalid, revoked or expired API key');
    }
    const principal: Principal = {
      tenantId: key.tenantId,
      userId: key.keyId,
      ownerId: key.ownerId,
      role: key.role,
      via: 'api_key',
      keyId: key.keyId,
      keyExpiresAt: key.expiresAt,
      rateKey: `key:${key.keyId}`,
    };
    const expiry = key.expiresAt ? key.expiresAt.getTime() : Infinity;
    if (cache.size > 50_000) cache.clear();
    cache.set(cacheKey, { principal, until: Math.min(now + config.AUTH_CACHE_TTL_MS, expiry) });
    return principal;
  }

  /**
   * A stolen token is only as harmless as its remaining life: one without `exp` (unless allowed)
   * or living longer than JWT_MAX_LIFETIME_S is refused. An `iat` in the future cannot shorten the
   * measured lifetime: it is counted from now then.
   */
  function checkLifetime(payload: JWTPayload): void {
    if (payload.exp === undefined) {
      if (config.JWT_REQUIRE_EXP) throw unauthenticated('token has no expiry (exp)');
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const issued = Math.min(payload.iat ?? now, now);
    if (payload.exp - issued > config.JWT_MAX_LIFETIME_S) {
      throw unauthenticated(`token lifetime exceeds ${config.JWT_MAX_LIFETIME_S} seconds`);
    }
  }

  async function keyStillLive(keyId: string, tenantId: string): Promise<VerifiedKey> {
    const now = Date.now();
    const cached = liveKeys.get(keyId);
    if (cached && cached.until > now) return cached.key;
    const key = await apiKeys.liveKey(keyId);
    if (!key || key.tenantId !== tenantId) {
      liveKeys.delete(keyId);
      throw unauthenticated('the API key this console token came from is revoked or expired');
    }
    if (liveKeys.size > 50_000) liveKeys.clear();
    liveKeys.set(keyId, { key, until: Math.min(now + config.AUTH_CACHE_TTL_MS, key.expiresAt?.getTime() ?? Infinity) });
    return key;
  }

  async function fromConsoleToken(token: string): Promise<Principal> {
    let claims: ConsoleClaims;
    try {
      claims = await consoleTokens.verify(token);
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthenticated('console token expired: sign in again');
      throw unauthenticated('invalid token');
    }
    const key = await keyStillLive(claims.key_id, claims.tenant_id);
    return {
      tenantId: claims.tenant_id,
      userId: claims.sub,
      ownerId: claims.sub,
      role: claims.roles.includes('admin') ? 'admin' : 'member',
      via: 'jwt',
      keyId: claims.key_id,
      keyExpiresAt: key.expiresAt,
      rateKey: `user:${claims.tenant_id}:${claims.sub}`,
    };
  }

  async function fromJwt(token: string): Promise<Principal> {
    if (isConsoleToken(token)) return fromConsoleToken(token);
    if (!jwtKey) throw unauthenticated('console tokens are not enabled on this installation');
    try {
      const { payload } = await jwtVerify(token, jwtKey, {
        algorithms,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
      });
      checkLifetime(payload);
      const claims = jwtClaims.parse(payload);
      return {
        tenantId: claims.tenant_id,
        userId: claims.sub,
        ownerId: claims.sub,
        role: claims.roles.includes('admin') ? 'admin' : 'member',
        via: 'jwt',
        rateKey: `user:${claims.tenant_id}:${claims.sub}`,
      };
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw unauthenticated('token expired');
      throw unauthenticated('invalid token');
    }
  }

  return {
    /**
     * Undefined when the request carries no credentials; throws (or rejects with) 10002 when they
     * are bad. A cached API key answers synchronously: most calls need no turn of the event loop.
     */
    resolve(authorization: string | undefined): Principal | undefined | Promise<Principal | undefined> {
      if (!authorization) return undefined;
      const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
      if (!match) throw unauthenticated('Authorization must be "Bearer <API key or token>"');
      const token = match[1]!;
      return looksLikeApiKey(token) ? fromApiKey(token) : fromJwt(token);
    },
    /** Called on revocation so this process stops trusting the key at once. */
    forgetCachedKeys: () => {
      cache.clear();
      liveKeys.clear();
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
