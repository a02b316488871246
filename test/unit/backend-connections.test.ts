import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { elasticsearchClientOptions, temporalConnectionOptions } from '../../common/backend-connections';
import { ConfigError, loadConfig } from '../../common/config';

const valid = {
  MONGODB_URI: 'mongodb://127.0.0.1:27017/',
  ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

const dir = mkdtempSync(join(tmpdir(), 'backend-connections-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const cert = file('client.pem', 'CLIENT CERT');
const key = file('client.key', 'CLIENT KEY');
const ca = file('ca.pem', 'SERVER CA');

describe('settings for clusters and managed services', () => {
  it('connects to the local dev server in plain text by default, and to Elasticsearch without credentials', () => {
    const config = loadConfig(valid);
    expect(temporalConnectionOptions(config)).toEqual({ address: '127.0.0.1:7233' });
    expect(elasticsearchClientOptions(config, 30_000)).toEqual({ node: 'http://127.0.0.1:9200', requestTimeout: 30_000 });
    expect(config).toMatchObject({ WORKER_SHUTDOWN_GRACE_MS: 0, WORKER_HEALTH_HOST: '0.0.0.0' });
    expect(config.WORKER_HEALTH_PORT).toBeUndefined();
  });

  it('gives both Temporal connections mTLS: client certificate and key, server CA and server name, read from their files', () => {
    const config = loadConfig({
      ...valid,
      TEMPORAL_NAMESPACE: 'prod.a1b2c',
      TEMPORAL_TLS_CLIENT_CERT_PATH: cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: key,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(config.TEMPORAL_NAMESPACE).toBe('prod.a1b2c');
    const options = temporalConnectionOptions(config);
    expect(options.tls?.serverNameOverride).toBe('temporal.internal');
    expect(Buffer.from(options.tls!.serverRootCACertificate!).toString()).toBe('SERVER CA');
    expect(Buffer.from(options.tls!.clientCertPair!.crt).toString()).toBe('CLIENT CERT');
    expect(Buffer.from(options.tls!.clientCertPair!.key).toString()).toBe('CLIENT KEY');
    expect(options.apiKey).toBeUndefined();
  });

  it('turns TLS on with an API key (Temporal Cloud) or TEMPORAL_TLS=true, and refuses TEMPORAL_TLS=false with either', () => {
    expect(temporalConnectionOptions(loadConfig({ ...valid, TEMPORAL_API_KEY: 'cloud-key' }))).toEqual({
      address: '127.0.0.1:7233',
      tls: {},
      apiKey: 'cloud-key',
    });
    expect(temporalConnectionOptions(loadConfig({ ...valid, TEMPORAL_TLS: 'true' }))).toEqual({ address: '127.0.0.1:7233', tls: {} });
    expect(() => loadConfig({ ...valid, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'cloud-key' })).toThrow(
      'configuration error: TEMPORAL_TLS is false, but a TEMPORAL_TLS_* setting or TEMPORAL_API_KEY asks for TLS',
    );
    expect(temporalConnectionOptions(loadConfig({ ...valid, TEMPORAL_TLS: 'false' }))).toEqual({ address: '127.0.0.1:7233' });
  });

  it('refuses a client certificate without its key, and says which file cannot be read', () => {
    expect(() => loadConfig({ ...valid, TEMPORAL_TLS_CLIENT_CERT_PATH: cert })).toThrow(
      'configuration error: TEMPORAL_TLS_CLIENT_KEY_PATH set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH together',
    );
    const missing = loadConfig({ ...valid, TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'absent.pem') });
    expect(() => temporalConnectionOptions(missing)).toThrow(ConfigError);
    expect(() => temporalConnectionOptions(missing)).toThrow(
      `TEMPORAL_TLS_SERVER_CA_CERT_PATH cannot be read (ENOENT: ${join(dir, 'absent.pem')})`,
    );
  });

  it('gives Elasticsearch clients an API key or basic authentication, and the CA of an https node', () => {
    const https = { ...valid, ELASTICSEARCH_URL: 'https://es.internal:9200' };
    expect(elasticsearchClientOptions(loadConfig({ ...https, ELASTICSEARCH_API_KEY: 'aWQ6a2V5' }), 60_000)).toEqual({
      node: 'https://es.internal:9200',
      requestTimeout: 60_000,
      auth: { apiKey: 'aWQ6a2V5' },
    });
    const basic = elasticsearchClientOptions(
      loadConfig({ ...https, ELASTICSEARCH_USERNAME: 'combo', ELASTICSEARCH_PASSWORD: 'secret', ELASTICSEARCH_CA_CERT_PATH: ca }),
      1_000,
    );
    expect(basic.auth).toEqual({ username: 'combo', password: 'secret' });
    expect(String((basic.tls as { ca: Buffer }).ca)).toBe('SERVER CA');
  });

  it('refuses half or doubled Elasticsearch credentials and a CA for a plain http node', () => {
    expect(() => loadConfig({ ...valid, ELASTICSEARCH_USERNAME: 'combo' })).toThrow(
      'configuration error: ELASTICSEARCH_PASSWORD set ELASTICSEARCH_USERNAME and ELASTICSEARCH_PASSWORD together',
    );
    expect(() =>
      loadConfig({ ...valid, ELASTICSEARCH_API_KEY: 'k', ELASTICSEARCH_USERNAME: 'combo', ELASTICSEARCH_PASSWORD: 'secret' }),
    ).toThrow('configuration error: ELASTICSEARCH_API_KEY set ELASTICSEARCH_API_KEY or ELASTICSEARCH_USERNAME/PASSWORD, not both');
    expect(() => loadConfig({ ...valid, ELASTICSEARCH_CA_CERT_PATH: ca })).toThrow(
      'configuration error: ELASTICSEARCH_CA_CERT_PATH needs an https:// ELASTICSEARCH_URL',
    );
  });

  it('reads the worker shutdown grace and health port', () => {
    expect(loadConfig({ ...valid, WORKER_SHUTDOWN_GRACE_MS: '70000', WORKER_HEALTH_PORT: '9381' })).toMatchObject({
      WORKER_SHUTDOWN_GRACE_MS: 70_000,
      WORKER_HEALTH_PORT: 9381,
    });
    expect(() => loadConfig({ ...valid, WORKER_HEALTH_PORT: '70000' })).toThrow('WORKER_HEALTH_PORT');
  });
});
