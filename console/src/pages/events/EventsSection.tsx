/**
 * The Event log (/events): every outbound event the service recorded (`GET /v1/events`, admins
 * only: a member sees the API's 10003), newest first, filtered on the server by name and time
 * range (kept in the address, so a filtered log can be linked), each event's data expandable as
 * formatted JSON, with links to the session and run it names.
 */
import { type Event, type EventName, EventNameValues } from '@combo/client';
import { useId, useState } from 'react';
import { Link, Route, Routes, useSearchParams } from 'react-router';
import { fieldOf, hasCode } from '../../api/errors';
import { type EventFilter, useEvents } from '../../api/events';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { FilterBar } from '../../components/FilterBar';
import { PageLayout, Section } from '../../components/PageLayout';
import { Time } from '../../components/Time';
import { TimeRangeFields } from '../../components/TimeRangeFields';
import { NotFound } from '../NotFound';
import { isoRangeOf, localRangeOf } from '../../local-time';
import { JsonView } from './format';
import './events.css';

const isEventName = (value: string | null): value is EventName => value !== null && (EventNameValues as readonly string[]).includes(value);

function filterOf(params: URLSearchParams): EventFilter {
  const event = params.get('event');
  const since = params.get('since');
  const until = params.get('until');
  return { ...(isEventName(event) ? { event } : {}), ...(since ? { since } : {}), ...(until ? { until } : {}) };
}

function paramsOf(filter: EventFilter): Record<string, string> {
  return Object.fromEntries(Object.entries(filter).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

interface FiltersProps {
  filter: EventFilter;
  onApply: (filter: EventFilter) => void;
  /** The query field the API refused (`since`, `until`, `event`). */
  invalid: string | undefined;
}

function EventFilters({ filter, onApply, invalid }: FiltersProps) {
  const [event, setEvent] = useState<string>(filter.event ?? '');
  const [range, setRange] = useState(localRangeOf(filter));
  const ids = { event: useId() };
  const apply = () => onApply({ ...(isEventName(event) ? { event } : {}), ...isoRangeOf(range) });
  return (
    <FilterBar label="events" active={Object.keys(filter).length > 0} onApply={apply} onClear={() => onApply({})}>
      <div className="field">
        <label htmlFor={ids.event}>Event</label>
        <select id={ids.event} value={event} onChange={(e) => setEvent(e.target.value)} aria-invalid={invalid === 'event'}>
          <option value="">Any event</option>
          {EventNameValues.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <TimeRangeFields value={range} onChange={setRange} invalid={invalid} />
    </FilterBar>
  );
}

/** Links to what an event names: its run and its session. */
function EventSubject({ data }: { data: Record<string, unknown> }) {
  const traceId = typeof data.trace_id === 'string' ? data.trace_id : undefined;
  const sessionId = typeof data.session_id === 'string' ? data.session_id : undefined;
  const docId = typeof data.doc_id === 'string' ? data.doc_id : undefined;
  const tool = typeof data.tool_name === 'string' ? data.tool_name : undefined;
  if (!traceId && !sessionId && !docId && !tool) return <span className="muted">—</span>;
  return (
    <ul className="evt-subject">
      {sessionId && (
        <li>
          Session <Link to={`/sessions/${encodeURIComponent(sessionId)}`}>{sessionId}</Link>
        </li>
      )}
      {traceId && (
        <li>
          Run <Link to={`/sessions/runs/${encodeURIComponent(traceId)}`}>{traceId}</Link>
        </li>
      )}
      {docId && (
        <li>
          Document <code>{docId}</code>
        </li>
      )}
      {tool && (
        <li>
          Tool <code>{tool}</code>
        </li>
      )}
    </ul>
  );
}

const COLUMNS: Column<Event>[] = [
  { key: 'time', header: 'Time', render: (event) => <Time value={event.timestamp} /> },
  { key: 'event', header: 'Event', render: (event) => <code className="evt-name">{event.event}</code> },
  { key: 'subject', header: 'About', render: (event) => <EventSubject data={event.data} /> },
  {
    key: 'data',
    header: 'Data',
    render: (event) => (
      <details className="evt-data">
        <summary>
          Data
          <span className="visually-hidden">
            {' '}
            of {event.event} {event.event_id}
          </span>
        </summary>
        <p className="evt-id muted">
          Event id <code>{event.event_id}</code>
        </p>
        <JsonView value={event.data} />
      </details>
    ),
  },
];

function EventLog() {
  const [params, setParams] = useSearchParams();
  const filter = filterOf(params);
  const events = useEvents(filter);
  const forbidden = hasCode(events.error, 10003);
  return (
    <PageLayout
      title="Event log"
      description="Every outbound event the service recorded, newest first: what webhook subscriptions are sent and what replays resend. Only admins may read it."
    >
      <Section
        title="Recorded events"
        actions={
          <button type="button" className="button button-small" onClick={events.refetch} disabled={events.isFetching}>
            {events.isFetching ? 'Refreshing…' : 'Refresh'}
          </button>
        }
      >
        <p className="help">Filter by event name and time range (your local time; from is inclusive, until exclusive).</p>
        <EventFilters
          key={params.toString()}
          filter={filter}
          onApply={(next) => setParams(paramsOf(next))}
          invalid={fieldOf(events.error, 'query')}
        />
        {forbidden ? (
          <ErrorBanner error={events.error} title="Only admins can read the event log" />
        ) : (
          <DataTable
            caption="Recorded events"
            columns={COLUMNS}
            list={events}
            rowKey={(event) => event.event_id}
            empty={
              <EmptyState title={Object.keys(filter).length > 0 ? 'No events match these filters' : 'No events recorded yet'}>
                <p>
                  {Object.keys(filter).length > 0
                    ? 'Widen the time range or pick another event, or clear the filters.'
                    : 'Events are recorded as things happen: create a session or run an agent, and its events appear here.'}
                </p>
              </EmptyState>
            }
          />
        )}
      </Section>
    </PageLayout>
  );
}

export function EventsSection() {
  return (
    <Routes>
      <Route index element={<EventLog />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
