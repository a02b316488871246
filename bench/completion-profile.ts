import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { completionWorkflowId, sessionRunsWorkflowId } from '../common/workflow-ids';
import { median } from './load';

/** One timed request: when the client sent it and when it had its answer (epoch ms, this machine's clock). */
export interface TimedRequest {
  traceId: string;
  sessionId: string;
  sentAt: number;
  /** Client-side marks besides the answer (`first SSE event`), ms after sentAt. */
  marks: Record<string, number>;
  answeredAt: number;
}

type HistoryEvent = NonNullable<Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']>[number];

/** An event's kind from the attributes it carries (`workflowTaskCompleted`), so no enum table is needed. */
const kindOf = (event: HistoryEvent): string => {
  const key = Object.keys(event).find((k) => k.endsWith('EventAttributes') && (event as Record<string, unknown>)[k] != null);
  return key ? key.replace(/EventAttributes$/, '') : `type${String(event.eventType)}`;
};

/**
 * Where one request's time went: each history event of its session's workflow, if it went through
 * one (inside the request's window; sequential requests to a session do not overlap), and of its run's workflow, as ms after the
 * client sent the request. Server and client share this machine's clock.
 */
async function marksOf(client: Client, req: TimedRequest): Promise<Map<string, number>> {
  const marks = new Map<string, number>(Object.entries(req.marks));
  marks.set('client: answer', req.answeredAt - req.sentAt);
  const add = (prefix: string, events: HistoryEvent[], windowed: boolean) => {
    const seen = new Map<string, number>();
    for (const event of events) {
      const at = tsToMs(event.eventTime);
      if (windowed && (at < req.sentAt - 2 || at > req.answeredAt + 2)) continue;
      const kind = kindOf(event);
      const n = (seen.get(kind) ?? 0) + 1;
      seen.set(kind, n);
      marks.set(`${prefix}: ${kind}${n > 1 ? ` #${n}` : ''}`, at - req.sentAt);
    }
  };
  const [session, run] = await Promise.all([
    // An idle session's run starts without its session's workflow, which then has no history.
    client.workflow
      .getHandle(sessionRunsWorkflowId(req.sessionId))
      .fetchHistory()
      .catch(() => null),
    client.workflow.getHandle(completionWorkflowId(req.traceId)).fetchHistory(),
  ]);
  if (session) add('session', session.events ?? [], true);
  add('run', run.events ?? [], false);
  return marks;
}

/** Prints each mark's median offset over the requests (marks every request has), in time order. */
export async function printProfile(client: Client, title: string, requests: TimedRequest[]): Promise<void> {
  const all = await Promise.all(requests.map((r) => marksOf(client, r)));
  const labels = [...new Set(all.flatMap((m) => [...m.keys()]))];
  const rows = labels
    .map((label) => {
      const values = all.map((m) => m.get(label)).filter((v): v is number => v !== undefined);
      return { label, at: median(values), count: values.length };
    })
    .filter((row) => row.count >= requests.length / 2)
    .sort((a, b) => a.at - b.at);
  console.log(`\n### ${title}: median ms after the request was sent (${requests.length} requests)\n`);
  console.log('| mark | ms | step from previous |');
  console.log('|---|---|---|');
  let previous = 0;
  for (const row of rows) {
    console.log(`| ${row.label} | ${row.at.toFixed(1)} | ${(row.at - previous).toFixed(1)} |`);
    previous = row.at;
  }
}
