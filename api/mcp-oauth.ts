import type { Middleware } from 'koa';
import type { Config } from '../common/config';
import { AppError, ErrorCodes } from '../common/errors';
import type { ProtectedResourceMetadata } from '../common/schemas/mcp';
import type { AppState } from './context';

export const MCP_PATH = '/v1/mcp';
/** RFC 9728's well-known path, and the one for /v1/mcp (the resource's path appended), which MCP clients try first. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const MCP_PROTECTED_RESOURCE_PATH = `${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The protected-resource metadata of /v1/mcp (RFC 9728), when an identity provider is configured:
 * JWT_ISSUER, whose tokens JWT_PUBLIC_KEY (or JWT_SECRET) verifies. null otherwise: the MCP server
 * then takes API keys and console tokens only, and advertises no authorization server.
 */
export function protectedResourceOf(config: Config): ProtectedResourceMetadata | null {
  if (!config.JWT_ISSUER || !(config.JWT_PUBLIC_KEY || config.JWT_SECRET)) return null;
  const base = withoutTrailingSlash(config.PUBLIC_BASE_URL);
  return {
    resource: `${base}${MCP_PATH}`,
    authorization_servers: [config.JWT_ISSUER],
    bearer_methods_supported: ['header'],
    resource_name: 'Agent Orchestration Service (MCP)',
  };
}

/**
 * With an identity provider configured, a 401 on /v1/mcp says where the protected-resource metadata
 * is (`WWW-Authenticate: Bearer resource_metadata="…"`), as the MCP authorization specification
 * asks, so that an MCP host can find the authorization server; the error body stays the contract's.
 */
export function mcpAuthChallenge(config: Config): Middleware<AppState> | null {
  if (!protectedResourceOf(config)) return null;
  const challenge = `Bearer resource_metadata="${withoutTrailingSlash(config.PUBLIC_BASE_URL)}${MCP_PROTECTED_RESOURCE_PATH}"`;
  // Not async: most requests pass through without a promise of their own.
  return (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    return next().catch((err: unknown) => {
      if (err instanceof AppError && err.code === ErrorCodes.UNAUTHENTICATED) ctx.set('WWW-Authenticate', challenge);
      throw err;
    });
  };
}
