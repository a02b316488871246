import { readFileSync } from 'node:fs';
import type { ClientOptions as EsClientOptions } from '@elastic/elasticsearch';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import { type Config, ConfigError } from './config';

/**
 * How this process reaches Temporal and Elasticsearch: every connection the API and the worker open
 * (the client Connection, the worker's NativeConnection, Elasticsearch clients) takes its options
 * from here, so a cluster's or a managed service's TLS and credentials reach all of them.
 */

function readPem(setting: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(
      `configuration error: ${setting} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}: ${path})`,
    );
  }
}

/** Options of both Temporal connections (`Connection.connect`, `NativeConnection.connect`): address, TLS, API key. */
export function temporalConnectionOptions(config: Config): { address: string; tls?: TLSConfig; apiKey?: string } {
  const tlsAsked =
    config.TEMPORAL_TLS === 'true' ||
    Boolean(
      config.TEMPORAL_TLS_CLIENT_CERT_PATH ||
      config.TEMPORAL_TLS_SERVER_CA_CERT_PATH ||
      config.TEMPORAL_TLS_SERVER_NAME ||
      config.TEMPORAL_API_KEY,
    );
  const tls: TLSConfig = {
    ...(config.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: config.TEMPORAL_TLS_SERVER_NAME } : {}),
    ...(config.TEMPORAL_TLS_SERVER_CA_CERT_PATH
      ? { serverRootCACertificate: readPem('TEMPORAL_TLS_SERVER_CA_CERT_PATH', config.TEMPORAL_TLS_SERVER_CA_CERT_PATH) }
      : {}),
    ...(config.TEMPORAL_TLS_CLIENT_CERT_PATH && config.TEMPORAL_TLS_CLIENT_KEY_PATH
      ? {
          clientCertPair: {
            crt: readPem('TEMPORAL_TLS_CLIENT_CERT_PATH', config.TEMPORAL_TLS_CLIENT_CERT_PATH),
            key: readPem('TEMPORAL_TLS_CLIENT_KEY_PATH', config.TEMPORAL_TLS_CLIENT_KEY_PATH),
          },
        }
      : {}),
  };
  return {
    address: config.TEMPORAL_ADDRESS,
    ...(tlsAsked ? { tls } : {}),
    ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}),
  };
}

/** Options of an Elasticsearch client: the node, its credentials (API key or basic) and the CA of an https node. */
export function elasticsearchClientOptions(config: Config, requestTimeout: number): EsClientOptions {
  const auth = config.ELASTICSEARCH_API_KEY
    ? { apiKey: config.ELASTICSEARCH_API_KEY }
    : config.ELASTICSEARCH_USERNAME && config.ELASTICSEARCH_PASSWORD
      ? { username: config.ELASTICSEARCH_USERNAME, password: config.ELASTICSEARCH_PASSWORD }
      : undefined;
  return {
    node: config.ELASTICSEARCH_URL,
    requestTimeout,
    ...(auth ? { auth } : {}),
    ...(config.ELASTICSEARCH_CA_CERT_PATH ? { tls: { ca: readPem('ELASTICSEARCH_CA_CERT_PATH', config.ELASTICSEARCH_CA_CERT_PATH) } } : {}),
  };
}
