import { randomUUID } from 'node:crypto';
import { decodeJwt, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import type { Role } from '../common/schemas/api-keys';

/** The `iss` and `aud` of the service's own console tokens; an identity provider's tokens carry others. */
const CONSOLE_ISSUER = 'combo-console';

const consoleClaims = z.object({
  sub: z.string().min(1),
  tenant_id: z.string().min(1),
  roles: z.array(z.enum(['admin', 'member'])).min(1),
  key_id: z.string().min(1),
  exp: z.number(),
});

export type ConsoleClaims = z.infer<typeof consoleClaims>;

export interface ConsoleTokenSubject {
  tenantId: string;
  userId: string;
  role: Role;
  keyId: string;
  /** The key's own expiry: a token never outlives the key it came from. */
  keyExpiresAt: Date | null;
}

/** Whether a bearer token claims to be one of ours (unverified: it only picks the verifier). */
export function isConsoleToken(token: string): boolean {
  try {
    return decodeJwt(token).iss === CONSOLE_ISSUER;
  } catch {
    return false;
  }
}

/**
 * Short-lived HS256 tokens the console exchanges an API key for. They name the key they came from,
 * so the authenticator refuses them once that key is revoked or expired.
 */
export function createConsoleTokens(signingKey: Uint8Array, ttlSeconds: number) {
  return {
    async issue(subject: ConsoleTokenSubject, now = new Date()) {
      const nowSeconds = Math.floor(now.getTime() / 1000);
      const keyEnd = subject.keyExpiresAt ? Math.floor(subject.keyExpiresAt.getTime() / 1000) : Infinity;
      const exp = Math.min(nowSeconds + ttlSeconds, keyEnd);
      const roles: Role[] = subject.role === 'admin' ? ['admin', 'member'] : ['member'];
      const token = await new SignJWT({ tenant_id: subject.tenantId, roles, key_id: subject.keyId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(CONSOLE_ISSUER)
        .setAudience(CONSOLE_ISSUER)
        .setSubject(subject.userId)
        .setJti(randomUUID())
        .setIssuedAt(nowSeconds)
        .setExpirationTime(exp)
        .sign(signingKey);
      return {
        token,
        token_type: 'Bearer' as const,
        expires_at: new Date(exp * 1000).toISOString(),
        expires_in: exp - nowSeconds,
        tenant_id: subject.tenantId,
        user_id: subject.userId,
        roles,
        key_id: subject.keyId,
      };
    },

    /** The claims of a valid, unexpired console token; throws (jose's errors) otherwise. */
    async verify(token: string): Promise<ConsoleClaims> {
      const { payload } = await jwtVerify(token, signingKey, {
        algorithms: ['HS256'],
        issuer: CONSOLE_ISSUER,
        audience: CONSOLE_ISSUER,
        requiredClaims: ['exp', 'sub'],
      });
      return consoleClaims.parse(payload);
    },
  };
}

export type ConsoleTokens = ReturnType<typeof createConsoleTokens>;
