import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../common/config';

/**
 * The Helm chart renders (`helm template`) with its default values and with a values file setting
 * every option, and what it renders passes the Kubernetes schemas (kubernetes-validate, offline, strict).
 * stack/install.sh chart-tools installs both tools; npm test runs it.
 */
const ROOT = join(__dirname, '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'combo');
const ALL_OPTIONS = join(ROOT, 'test', 'fixtures', 'helm', 'all-options.yaml');
const BIN = process.env.STACK_BIN_DIR ?? join(ROOT, '.stack', 'bin');
const HELM = join(BIN, 'helm');
const VALIDATE = join(BIN, '..', 'kubernetes-validate', 'bin', 'kubernetes-validate');
const KUBERNETES_VERSION = '1.33.0';

interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- rendered YAML, read field by field
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

function run(command: string, args: string[]) {
  return spawnSync(command, args, { encoding: 'utf8', timeout: 120_000 });
}

function render(valuesFiles: string[] = []): { text: string; manifests: Manifest[] } {
  const result = run(HELM, ['template', 'combo', CHART, '--kube-version', KUBERNETES_VERSION, ...valuesFiles.flatMap((f) => ['-f', f])]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const manifests = parseAllDocuments(result.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
  return { text: result.stdout, manifests };
}

function validate(text: string) {
  const file = join(mkdtempSync(join(tmpdir(), 'helm-chart-')), 'rendered.yaml');
  writeFileSync(file, text);
  return run(VALIDATE, ['--kubernetes-version', KUBERNETES_VERSION, '--strict', '--quiet', file]);
}

const find = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found;
};
const env = (container: any) => Object.fromEntries((container.env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value])); // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(() => {
  for (const tool of [HELM, VALIDATE])
    if (!existsSync(tool)) throw new Error(`${tool} is missing: run "bash stack/install.sh chart-tools"`);
});

describe('the Helm chart', () => {
  it('fails validation for a manifest the schemas refuse (the check can fail)', () => {
    const broken = `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: broken }\nspec:\n  replicas: two\n  selector: { matchLabels: { a: b } }\n  template: { metadata: { labels: { a: b } }, spec: { containers: [{ name: c, image: i }] } }\n`;
    expect(validate(broken).status).not.toBe(0);
  });

  it('renders with its default values into valid manifests: the API with probes, a PDB and an HPA, one worker with its probes', () => {
    const { text, manifests } = render();
    const validation = validate(text);
    expect(validation.stdout + validation.stderr).toBe('');
    expect(validation.status).toBe(0);
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      'ConfigMap/combo-config',
      'Deployment/combo-api',
      'Deployment/combo-worker',
      'HorizontalPodAutoscaler/combo-api',
      'PodDisruptionBudget/combo-api',
      'Service/combo-api',
      'ServiceAccount/combo',
    ]);
    const api = find(manifests, 'Deployment', 'combo-api').spec.template.spec;
    expect(api.containers[0].command).toEqual(['node', 'dist/api/main.js']);
    expect(api.containers[0].readinessProbe.httpGet).toEqual({ path: '/v1/ready', port: 'http' });
    expect(api.containers[0].livenessProbe.httpGet).toEqual({ path: '/v1/health', port: 'http' });
    const worker = find(manifests, 'Deployment', 'combo-worker').spec.template.spec;
    expect(worker.containers[0].command).toEqual(['node', 'dist/workers/main.js']);
    expect(worker.containers[0].readinessProbe.httpGet).toEqual({ path: '/ready', port: 'health' });
    expect(worker.containers[0].livenessProbe.httpGet).toEqual({ path: '/live', port: 'health' });
    expect(env(worker.containers[0])).toMatchObject({ WORKER_HEALTH_PORT: '9381', WORKER_SHUTDOWN_GRACE_MS: '70000' });
    expect(worker.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(80);
  });

  it('renders every option into valid manifests; the settings it writes are ones the service accepts', () => {
    const { text, manifests } = render([ALL_OPTIONS]);
    const validation = validate(text);
    // KEDA's ScaledObject is a custom resource: the Kubernetes schemas do not have it, and say so.
    expect(validation.stdout.split('\n').filter((l) => l && !/Couldn't find schema for kind ScaledObject/.test(l))).toEqual([]);
    expect(validation.status).toBe(0);

    const config = find(manifests, 'ConfigMap', 'combo-config').data!;
    const secret = find(manifests, 'Secret', 'combo-secrets').stringData!;
    const apiPod = find(manifests, 'Deployment', 'combo-api').spec.template.spec;
    const api = apiPod.containers[0];
    expect(apiPod.volumes.map((v: { secret: { secretName: string } }) => v.secret.secretName)).toEqual([
      'temporal-client-tls',
      'elasticsearch-ca',
    ]);
    expect(api.ports.map((p: { name: string }) => p.name)).toEqual(['http', 'metrics', 'codec']);
    // What the API container would run with parses: the mounted certificates' paths included.
    const parsed = loadConfig({ ...config, ...secret, ...env(api) });
    expect(parsed).toMatchObject({
      TEMPORAL_NAMESPACE: 'combo.a1b2c',
      TEMPORAL_TLS_CLIENT_CERT_PATH: '/etc/combo/temporal-tls/tls.crt',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/etc/combo/temporal-tls/tls.key',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/etc/combo/temporal-tls/ca.crt',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      ELASTICSEARCH_CA_CERT_PATH: '/etc/combo/elasticsearch-ca/ca.crt',
      ELASTICSEARCH_API_KEY: 'aWQ6a2V5',
      RATE_LIMIT_DEFAULT_PER_MIN: 600,
    });

    expect(find(manifests, 'PodDisruptionBudget', 'combo-api').spec.minAvailable).toBe(2);
    expect(find(manifests, 'HorizontalPodAutoscaler', 'combo-api').spec).toMatchObject({ minReplicas: 3, maxReplicas: 20 });
    expect(find(manifests, 'Deployment', 'combo-api').spec.replicas).toBeUndefined();

    // One worker Deployment per group, each polling its queues, its grace covered by the pod's.
    const interactive = find(manifests, 'Deployment', 'combo-interactive').spec.template.spec;
    const bulk = find(manifests, 'Deployment', 'combo-bulk').spec.template.spec;
    expect(env(interactive.containers[0])).toMatchObject({
      WORKER_TASK_QUEUES: 'interactive',
      WORKER_SHUTDOWN_GRACE_MS: '70000',
      WORKER_HEALTH_PORT: '9400',
      WORKER_MAX_CACHED_WORKFLOWS: '1000',
    });
    expect(loadConfig({ ...config, ...secret, ...env(bulk.containers[0]) }).WORKER_SHUTDOWN_GRACE_MS).toBe(600_000);
    expect(env(bulk.containers[0]).WORKER_TASK_QUEUES).toBe('ingest,deliveries');
    expect(loadConfig({ ...config, ...secret, ...env(bulk.containers[0]) }).WORKER_TASK_QUEUES).toEqual(['ingest', 'deliveries']);
    expect(interactive.terminationGracePeriodSeconds).toBe(90);
    expect(bulk.terminationGracePeriodSeconds).toBe(610);

    // Scaled on each queue's backlog by KEDA's Temporal scaler.
    const scaled = find(manifests, 'ScaledObject', 'combo-bulk').spec;
    expect(scaled).toMatchObject({ scaleTargetRef: { name: 'combo-bulk' }, minReplicaCount: 1, maxReplicaCount: 8 });
    expect(scaled.triggers.map((t: { metadata: { taskQueue: string } }) => t.metadata.taskQueue)).toEqual([
      'combo-ingestion',
      'combo-deliveries',
    ]);
    expect(scaled.triggers[0]).toEqual({
      type: 'temporal',
      metadata: {
        endpoint: 'combo.a1b2c.tmprl.cloud:7233',
        namespace: 'combo.a1b2c',
        taskQueue: 'combo-ingestion',
        targetQueueSize: '20',
        tlsServerName: 'temporal.internal',
      },
      authenticationRef: { name: 'temporal-cloud' },
    });
    expect(find(manifests, 'Deployment', 'combo-bulk').spec.replicas).toBeUndefined();
  });

  it('uses an existing Secret instead of writing one', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'helm-values-')), 'values.yaml');
    writeFileSync(file, 'existingSecret: combo-from-vault\nsecrets: { SECRETS_ENCRYPTION_KEY: ignored }\n');
    const { text, manifests } = render([file]);
    expect(validate(text).status).toBe(0);
    expect(manifests.some((m) => m.kind === 'Secret')).toBe(false);
    const api = find(manifests, 'Deployment', 'combo-api').spec.template.spec.containers[0];
    expect(api.envFrom).toEqual([{ configMapRef: { name: 'combo-config' } }, { secretRef: { name: 'combo-from-vault' } }]);
  });
});
