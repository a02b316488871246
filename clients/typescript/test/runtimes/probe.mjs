// Run by test/runtimes.test.ts under Bun and Deno (and Node, as the baseline): the ESM build against
// the service named by COMBO_BASE_URL / COMBO_API_KEY, through the parts of the client that lean on
// the runtime: fetch and its streamed body (SSE), AbortSignal, FormData uploads with progress, Web
// Crypto and the environment. Prints one JSON line of what it saw.
import { fileURLToPath } from 'node:url';
import { Combo, NotFoundError, signWebhook, verifyWebhook } from '@combo/client';

const client = new Combo();
const health = await client.service.health();
const missing = await client.agents.get('agt_missing').catch((e) => e);

const agent = await client.agents.create({ name: `runtime-probe-${Date.now()}`, instructions: 'Answer briefly.' });
try {
  const session = await client.sessions.create(agent.agent_id);
  const stream = await client.completions.stream(agent.agent_id, { session_id: session.session_id, question: 'Runtime [slow]' });
  const events = [];
  for await (const event of stream) events.push(event.event);
  const final = await stream.final();

  const aborted = new AbortController();
  aborted.abort();
  const abortError = await client.agents.list({}, { signal: aborted.signal }).catch((e) => e);

  let last = { loaded: 0, total: -1 };
  const file = await client.files.upload(
    { file: new TextEncoder().encode('runtime probe upload\n'.repeat(64)) },
    { onProgress: (p) => (last = p) },
  );
  const fetched = await client.files.get(file.file_id);
  await client.files.delete(file.file_id);
  // A path: read by the runtime's node:fs.
  const readme = await client.files.upload({ file: fileURLToPath(new URL('../../README.md', import.meta.url)) });
  await client.files.delete(readme.file_id);

  const payload = JSON.stringify({ event: 'run.completed', data: { trace_id: final.trace_id } });
  const headers = await signWebhook({ payload, secret: 'whsec_probe', timestamp: Math.floor(Date.now() / 1000) });
  const verified = await verifyWebhook(payload, headers, 'whsec_probe');
  const forged = await verifyWebhook(payload, headers, 'whsec_other').catch((e) => e.constructor.name);

  console.log(
    JSON.stringify({
      health: health.status,
      missing: { name: missing.constructor.name, notFound: missing instanceof NotFoundError, code: missing.code },
      stream: { first: events[0], last: events.at(-1), severalMessages: events.filter((e) => e === 'message').length > 2 },
      final: { answer: final.answer, stop_reason: final.stop_reason, traced: final.trace_id === stream.traceId },
      aborted: abortError.constructor.name,
      upload: { size: fetched.size_bytes, complete: last.loaded === last.total, fromPath: readme.name, format: readme.format },
      webhook: { verified: verified.data.trace_id === final.trace_id, forged },
    }),
  );
} finally {
  await client.agents.delete(agent.agent_id, { cascade: true });
}
