import type { ChildProcess } from 'node:child_process';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { makeCertificates, startHttpsFront, startMutualTlsFront } from '../support/tls-stand-ins';
import { killProcess, spawnWorkerProcess } from '../support/worker-process';

/**
 * Temporal behind mTLS and Elasticsearch behind https with credentials, as a cluster or a managed
 * service has them: stand-ins started here (TLS fronts of the local Temporal and Elasticsearch, with
 * a CA made by openssl) check that the API and the worker verify the server's CA and name, present
 * their client certificate and send their Elasticsearch credentials, on every connection they open.
 */
const temporalCerts = makeCertificates('DNS:temporal.test');
const esCerts = makeCertificates('IP:127.0.0.1');
let temporalFront: Awaited<ReturnType<typeof startMutualTlsFront>>;
let esFront: Awaited<ReturnType<typeof startHttpsFront>>;

beforeAll(async () => {
  temporalFront = await startMutualTlsFront(temporalCerts.server, process.env.TEMPORAL_ADDRESS!);
  esFront = await startHttpsFront(esCerts.server, process.env.ELASTICSEARCH_URL!);
});
afterAll(async () => {
  await temporalFront.close();
  await esFront.close();
});

const managedSettings = () => ({
  TEMPORAL_ADDRESS: temporalFront.address,
  TEMPORAL_TLS_CLIENT_CERT_PATH: temporalCerts.clientCertPath,
  TEMPORAL_TLS_CLIENT_KEY_PATH: temporalCerts.clientKeyPath,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: temporalCerts.caPath,
  TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
  ELASTICSEARCH_URL: esFront.url,
  ELASTICSEARCH_CA_CERT_PATH: esCerts.caPath,
  ELASTICSEARCH_API_KEY: 'aWQ6a2V5',
});

describe('Temporal over mTLS and Elasticsearch over https with credentials', () => {
  it('the API and the worker reach both through the stand-ins: client certificate presented, server CA and name verified, API key sent', async () => {
    const api: TestApi = await startTestApi(managedSettings());
    let worker: ChildProcess | undefined;
    try {
      const ready = await api.call('GET', '/v1/ready');
      expect(ready.status).toBe(200);
      expect(ready.json.data.checks.temporal.ok).toBe(true);
      expect(ready.json.data.checks.elasticsearch.ok).toBe(true);
      const apiConnections = temporalFront.clientNames.length;
      expect(apiConnections).toBeGreaterThanOrEqual(1);
      expect(esFront.authorizations.length).toBeGreaterThanOrEqual(1);
      expect(new Set(esFront.authorizations)).toEqual(new Set(['ApiKey aWQ6a2V5']));

      // The built worker with the same settings: its NativeConnection (polling) and its client
      // Connection (schedules) both come through the front, and it polls the test's task queue.
      worker = await spawnWorkerProcess(api.config, managedSettings());
      expect(temporalFront.clientNames.length).toBeGreaterThanOrEqual(apiConnections + 2);
      expect(new Set(temporalFront.clientNames)).toEqual(new Set(['combo-client']));
      await eventually(async () => {
        const res = await api.call('GET', '/v1/ready');
        return res.json.data.checks.worker.ok === true ? res : undefined;
      }, 30_000);
    } finally {
      if (worker) await killProcess(worker, 'SIGTERM');
      await api.close();
    }
  });

  it('sends basic authentication to Elasticsearch when a user name and password are set', async () => {
    const seen = esFront.authorizations.length;
    const api = await startTestApi({
      ...managedSettings(),
      ELASTICSEARCH_API_KEY: '',
      ELASTICSEARCH_USERNAME: 'combo',
      ELASTICSEARCH_PASSWORD: 's3cret',
    });
    try {
      expect((await api.call('GET', '/v1/ready')).json.data.checks.elasticsearch.ok).toBe(true);
      expect(new Set(esFront.authorizations.slice(seen))).toEqual(new Set([`Basic ${Buffer.from('combo:s3cret').toString('base64')}`]));
    } finally {
      await api.close();
    }
  });

  it('does not reach Temporal without the client certificate, nor trust a server whose CA or name it was not given', async () => {
    const { TEMPORAL_TLS_CLIENT_CERT_PATH: _cert, TEMPORAL_TLS_CLIENT_KEY_PATH: _key, ...withoutClientCert } = managedSettings();
    await expect(startTestApi(withoutClientCert)).rejects.toThrow();
    const { TEMPORAL_TLS_SERVER_CA_CERT_PATH: _ca, ...withoutCa } = managedSettings();
    await expect(startTestApi(withoutCa)).rejects.toThrow();
    await expect(startTestApi({ ...managedSettings(), TEMPORAL_TLS_SERVER_NAME: 'other.test' })).rejects.toThrow();
  });

  it('does not trust an Elasticsearch whose CA it was not given', async () => {
    const api = await startTestApi({ ...managedSettings(), ELASTICSEARCH_CA_CERT_PATH: '' });
    try {
      const res = await api.call('GET', '/v1/ready');
      expect(res.status).toBe(503);
      expect(res.json.data.down).toEqual(['elasticsearch']);
      expect(res.json.data.checks.elasticsearch.error).toMatch(/certificate/i);
    } finally {
      await api.close();
    }
  });
});
