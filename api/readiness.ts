import type { Services } from './services';

export interface CheckResult {
  ok: boolean;
  latency_ms: number;
  error?: string;
}

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref()),
  ]);

async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  const started = Date.now();
  try {
    await withTimeout(probe(), timeoutMs);
    return { ok: true, latency_ms: Date.now() - started };
  } catch (err) {
    // Only the first line: driver errors can be long, and addresses are the operator's own.
    return { ok: false, latency_ms: Date.now() - started, error: String((err as Error).message ?? err).split('\n')[0] };
  }
}

/** Each backend answers a cheap call: Temporal's health service, a Mongo ping, ES cluster health. */
export async function checkBackends({ temporal, mongo, es }: Pick<Services, 'temporal' | 'mongo' | 'es'>, timeoutMs = 2_000) {
  const [t, m, e] = await Promise.all([
    check(() => temporal.workflowService.getSystemInfo({}), timeoutMs),
    check(() => mongo.db.command({ ping: 1 }), timeoutMs),
    // The minimal Elasticsearch distribution has no root endpoint, so ping() fails: use cluster health.
    check(() => es.cluster.health({ timeout: `${timeoutMs}ms` }, { requestTimeout: timeoutMs, maxRetries: 0 }), timeoutMs),
  ]);
  return { temporal: t, mongodb: m, elasticsearch: e };
}
