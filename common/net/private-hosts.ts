import { bareHost } from './url-guard';

/** A host an operator lets model providers reach although it is private: any port, or only `port`. */
interface AllowedPrivateHost {
  /** As a URL's host is written once parsed: lower case, IPv4 and IPv6 in canonical form, IPv6 without brackets. */
  host: string;
  port: number | null;
}

/** The settings that decide whether a provider's URL may reach a private address. */
export interface PrivateHostSettings {
  ALLOW_PRIVATE_URLS: boolean;
  /** Entries as parseAllowedPrivateHost reads them (the configuration has checked each). */
  MODEL_PROVIDER_PRIVATE_HOSTS: readonly string[];
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * Reads one entry of MODEL_PROVIDER_PRIVATE_HOSTS: `host`, `host:port`, an IPv4 or IPv6 address, or
 * `[ipv6]:port`. The host is normalised as URLs normalise theirs (so `LOCALHOST` matches
 * `http://localhost`, `::0:1` matches `http://[::1]`). Null when it is none of these.
 */
export function parseAllowedPrivateHost(entry: string): AllowedPrivateHost | null {
  const text = entry.trim();
  // A bare IPv6 address has several colons and no brackets: bracket it for the URL parser.
  const authority = !text.startsWith('[') && (text.match(/:/g)?.length ?? 0) > 1 ? `[${text}]` : text;
  if (authority === '' || /[/?#@\s]/.test(authority)) return null;
  let url: URL;
  try {
    url = new URL(`http://${authority}`);
  } catch {
    return null;
  }
  // `:80` is dropped by the parser (the default of http:): read the port from the entry itself.
  const port = /:(\d{1,5})$/.exec(authority)?.[1];
  if (port !== undefined && Number(port) > 65_535) return null;
  return { host: bareHost(url), port: port === undefined ? null : Number(port) };
}

/** Whether `url`'s host (and port, when the entry names one) is one of `entries` (parseAllowedPrivateHost's forms). */
function listedHost(url: string | URL, entries: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return false;
  }
  const host = bareHost(parsed);
  const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  return entries.some((entry) => {
    const allowed = parseAllowedPrivateHost(entry);
    return allowed !== null && allowed.host === host && (allowed.port === null || allowed.port === port);
  });
}

/**
 * Whether a model provider at `url` may reach private, loopback and reserved addresses: always when
 * ALLOW_PRIVATE_URLS is on, else when its host (and port, when the entry names one) is one the
 * operator listed in MODEL_PROVIDER_PRIVATE_HOSTS (a local Ollama, a vLLM on the cluster network).
 * Every other URL must reach public addresses only: pass the answer as `allowPrivate` to the URL
 * guard when the provider is saved (assertPublicHttpUrl) and to guardedFetch when it is called.
 * No URL (a vendor's own API) is allowed only what ALLOW_PRIVATE_URLS allows; an unparseable URL
 * is not allowed anything (the guard refuses it).
 */
export function providerUrlAllowsPrivate(url: string | URL | undefined, settings: PrivateHostSettings): boolean {
  if (settings.ALLOW_PRIVATE_URLS) return true;
  return url !== undefined && listedHost(url, settings.MODEL_PROVIDER_PRIVATE_HOSTS);
}

/**
 * Whether an agent's MCP server at `url` may reach private addresses: always when ALLOW_PRIVATE_URLS
 * is on, else when its host (and port) is listed in MCP_PRIVATE_HOSTS (an MCP server beside the
 * service). Checked when the agent is saved and on every connection, as providerUrlAllowsPrivate is.
 */
export const mcpUrlAllowsPrivate = (url: string | URL, settings: { ALLOW_PRIVATE_URLS: boolean; MCP_PRIVATE_HOSTS: readonly string[] }) =>
  settings.ALLOW_PRIVATE_URLS || listedHost(url, settings.MCP_PRIVATE_HOSTS);
