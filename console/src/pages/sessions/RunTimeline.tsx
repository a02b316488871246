/**
 * A run's event timeline: its stored stream events (`GET /v1/combo/completions/{trace_id}/events`)
 * in order, from the first; an ended run's read to `done`, a live run's followed as they come.
 * Consecutive `message` events (each the whole answer so far) are shown as one entry with the last.
 * Each entry shows when it came, counted from the run's first event (its `timestamp`).
 */
import type { StreamEvent } from '@combo/client';
import { type RunEvents, useRunEvents } from '../../api/sessions';
import { ErrorBanner } from '../../components/ErrorBanner';
import { Section } from '../../components/PageLayout';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { formatNumber, Time } from '../../components/Time';
import { formatDuration, JsonView } from '../events/format';

interface Entry {
  event: StreamEvent;
  /** Sequence numbers (`<trace_id>:<n>`) of the first and last event it stands for. */
  first: number;
  last: number;
  count: number;
  /** When its first event was recorded (epoch ms); null for an event without a readable `timestamp`. */
  at: number | null;
}

const seqOf = (id: string): number => Number(id.slice(id.lastIndexOf(':') + 1));

/** An event's `timestamp` as epoch ms (every event of the API has one; an unknown event may not). */
function timeOf(event: StreamEvent): number | null {
  const data = event.data as { timestamp?: unknown } | null;
  const at = typeof data?.timestamp === 'string' ? Date.parse(data.timestamp) : Number.NaN;
  return Number.isNaN(at) ? null : at;
}

function entriesOf(events: StreamEvent[]): Entry[] {
  const entries: Entry[] = [];
  for (const event of events) {
    const previous = entries.at(-1);
    const seq = seqOf(event.id);
    if (previous && previous.event.event === 'message' && event.event === 'message') {
      previous.event = event;
      previous.last = seq;
      previous.count += 1;
    } else {
      entries.push({ event, first: seq, last: seq, count: 1, at: timeOf(event) });
    }
  }
  return entries;
}

const clip = (text: string, length = 160) => (text.length > length ? `${text.slice(0, length)}…` : text);
const argsText = (args: unknown) => clip(JSON.stringify(args) ?? '', 100);

function toneOf(event: StreamEvent): Tone {
  switch (event.event) {
    case 'error':
      return 'danger';
    case 'done':
      return event.data.stop_reason === 'failed' ? 'danger' : 'ok';
    case 'approval_required':
    case 'approval_decided':
      return 'warn';
    case 'tool_call':
    case 'tool_result':
    case 'message':
      return 'info';
    default:
      return 'neutral';
  }
}

function nameOf(event: StreamEvent): string {
  return event.event === 'unknown' ? event.name : event.event;
}

function Summary({ entry }: { entry: Entry }) {
  const { event } = entry;
  switch (event.event) {
    case 'thinking': {
      const { phase, route, offline, step, attempt } = event.data;
      if (phase === 'accepted')
        return (
          <>
            accepted, route <code>{route ?? 'default'}</code>
            {offline ? ' (offline: no language model)' : ''}
          </>
        );
      if (phase === 'queued') return <>queued behind an earlier run of the session</>;
      if (phase === 'retrieval') return <>searching the knowledge bases</>;
      return (
        <>
          {phase === 'model_retry' ? 'retrying the model call' : 'model call'} {step !== undefined && `step ${step}`}
          {attempt !== undefined && attempt > 1 && `, attempt ${attempt}`}
        </>
      );
    }
    case 'tool_call':
      return (
        <>
          <code>{event.data.tool}</code> called with <code>{argsText(event.data.args)}</code>
        </>
      );
    case 'tool_result': {
      const result = event.data.result;
      const failed = typeof result === 'object' && result !== null && 'error' in result;
      return (
        <>
          <code>{event.data.tool}</code> {failed ? 'failed' : 'answered'}
        </>
      );
    }
    case 'approval_required':
      return (
        <>
          <code>{event.data.tool}</code> waits for a person&apos;s approval until <Time value={event.data.expires_at} />
        </>
      );
    case 'approval_decided':
      return (
        <>
          <code>{event.data.tool}</code> {event.data.status.replace('_', ' ')}
          {event.data.comment ? `: ${event.data.comment}` : ''}
        </>
      );
    case 'message':
      return (
        <>
          {entry.count > 1 && <span className="muted">{entry.count} updates, the last: </span>}
          <span className="sess-event-text">{clip(event.data.answer ?? event.data.delta ?? '') || '(empty)'}</span>
        </>
      );
    case 'error':
      return (
        <>
          <code>{event.data.code}</code> {event.data.message}
        </>
      );
    case 'done': {
      const { stop_reason, cost } = event.data;
      return (
        <>
          ended: {stop_reason ?? 'done'}
          {cost && ` · ${formatNumber(cost.tokens)} tokens · ${formatDuration(cost.duration_ms)}`}
        </>
      );
    }
    default:
      return <>an event this console does not know</>;
  }
}

/** The stream's phase, announced politely (not every event: a live answer sends many). */
function Progress({ events, live }: { events: RunEvents; live: boolean }) {
  const count = events.events.length;
  if (events.phase === 'ended') return <>{formatNumber(count)} events, to the end of the run.</>;
  if (events.phase === 'failed') return <>{formatNumber(count)} events read before the stream failed.</>;
  if (live)
    return (
      <>
        <span className="sess-live-dot" aria-hidden="true" /> Following the run live…
      </>
    );
  return <>Reading the stored events…</>;
}

/** When an entry came, after the run's first event: `+1.2 s`, with the exact UTC time on hover. */
function Offset({ at, start }: { at: number | null; start: number | null }) {
  if (at === null || start === null) return null;
  const iso = new Date(at).toISOString();
  return (
    <time className="sess-event-offset" dateTime={iso} title={iso}>
      +{formatDuration(Math.max(0, at - start))}
    </time>
  );
}

export function RunTimeline({ traceId, live }: { traceId: string; live: boolean }) {
  const events = useRunEvents(traceId);
  const entries = entriesOf(events.events);
  const start = entries[0]?.at ?? null;
  return (
    <Section title="Event timeline">
      <p className="sess-timeline-status" role="status" aria-live="polite">
        <Progress events={events} live={live} />
      </p>
      {events.phase === 'failed' && <ErrorBanner error={events.error} title="Could not read the run's events" onRetry={events.retry} />}
      {entries.length > 0 && (
        <ol className="sess-timeline" aria-label="Events of the run, in order">
          {entries.map((entry) => (
            <li key={entry.first} className="sess-event">
              <span className="sess-event-seq">
                {entry.count > 1 ? `#${entry.first}–${entry.last}` : `#${entry.first}`}
                <Offset at={entry.at} start={start} />
              </span>
              <span className="sess-event-name">
                <StatusBadge tone={toneOf(entry.event)}>{nameOf(entry.event)}</StatusBadge>
              </span>
              <span className="sess-event-summary">
                <Summary entry={entry} />
              </span>
              <details className="sess-event-data">
                <summary>
                  Data<span className="visually-hidden"> of event {entry.last}</span>
                </summary>
                <JsonView value={entry.event.data} />
              </details>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
