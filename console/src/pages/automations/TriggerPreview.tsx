/**
 * The trigger preview: a pasted sample body (a JSON object, checked here first) and optional
 * headers, sent with the unsaved definition to `POST /v1/event-trigger/preview`, which answers
 * through the code a real inbound call runs: the normalised event, each condition passed or failed
 * with why, the task's filled inputs and question (or the path the event lacks), and whether a
 * task would start. Nothing is started or stored.
 */
import type { EventTriggerConfig, EventTriggerPreview } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { usePreviewTrigger } from '../../api/automations-triggers';
import { fieldOf } from '../../api/errors';
import { ErrorBanner } from '../../components/ErrorBanner';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { type Channel, CHANNELS, CHANNEL_SAMPLES, channelLabel } from './channels';
import { Facts, headerLinesOf, parseHeaderLines, parseJsonObject } from './fields';

const sampleText = (channel: Channel) => JSON.stringify(CHANNEL_SAMPLES[channel].payload, null, 2);

function Verdict({ preview }: { preview: EventTriggerPreview }) {
  if (preview.would_start)
    return (
      <div className="banner banner-info auto-verdict" role="status">
        <p className="banner-title">
          <StatusBadge tone="ok">would start</StatusBadge> The trigger matches: a real inbound call would start this task.
        </p>
      </div>
    );
  if (preview.matches)
    return (
      <div className="banner banner-warn auto-verdict" role="status">
        <p className="banner-title">
          <StatusBadge tone="warn">no task</StatusBadge> The trigger matches, but no task would start.
        </p>
        {preview.error && <p>{preview.error}</p>}
      </div>
    );
  const failed = preview.conditions.filter((c) => !c.passed);
  return (
    <div className="banner banner-warn auto-verdict" role="status">
      <p className="banner-title">
        <StatusBadge tone="danger">no match</StatusBadge> The trigger does not match this event.
      </p>
      {failed.map((c) => (
        <p key={c.condition}>
          <strong>{c.condition}</strong>: {c.detail}
        </p>
      ))}
    </div>
  );
}

function PreviewResult({ preview }: { preview: EventTriggerPreview }) {
  const { event, task } = preview;
  return (
    <div className="auto-preview-result" data-testid="preview-result">
      <Verdict preview={preview} />
      <h3>Conditions</h3>
      <div className="table-scroll">
        <table className="table">
          <caption className="visually-hidden">Conditions of the match</caption>
          <thead>
            <tr>
              <th scope="col">Condition</th>
              <th scope="col">Result</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {preview.conditions.map((c) => (
              <tr key={c.condition}>
                <td>
                  <code>{c.condition}</code>
                </td>
                <td>
                  <StatusBadge tone={c.passed ? 'ok' : 'danger'}>{c.passed ? 'passed' : 'failed'}</StatusBadge>
                </td>
                <td>{c.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Task</h3>
      {task ? (
        <>
          <Facts
            items={[
              ['Agent', <code key="a">{task.agent_id}</code>],
              ['Session template', task.session_template],
            ]}
          />
          <h4>Inputs</h4>
          {Object.keys(task.inputs).length === 0 ? (
            <p className="muted">No inputs.</p>
          ) : (
            <Facts
              items={Object.entries(task.inputs).map(([name, value]) => [
                name,
                <span key={name} className="auto-pre-wrap">
                  {value === '' ? <span className="muted">(empty)</span> : value}
                </span>,
              ])}
            />
          )}
          <h4>Question the agent would be asked</h4>
          <pre className="auto-pre" tabIndex={0} aria-label="Question the agent would be asked">
            {task.question}
          </pre>
        </>
      ) : (
        <p className="banner banner-error" role="status">
          No task: {preview.error}
        </p>
      )}
      <h3>Normalised event</h3>
      <Facts
        items={[
          ['Event', <code key="e">{event.event}</code>],
          ['Source', channelLabel(event.source)],
          ['Project', event.project ?? <span className="muted">none</span>],
          ['Actor', event.actor ?? <span className="muted">none</span>],
          ['URL', event.url ? <span className="auto-wrap">{event.url}</span> : <span className="muted">none</span>],
          ['Event id', <code key="i">{event.event_id}</code>],
          ['Received', <Time key="t" value={event.received_at} />],
        ]}
      />
    </div>
  );
}

export function TriggerPreviewPanel({
  config,
  enabled,
  onInvalidField,
}: {
  config: EventTriggerConfig;
  enabled: boolean;
  /** A field of the definition the API named in refusing the preview (marked on the form), or undefined. */
  onInvalidField: (field: string | undefined) => void;
}) {
  const preview = usePreviewTrigger();
  const [arrivesOn, setArrivesOn] = useState<Channel | ''>('');
  const channel = arrivesOn || config.source;
  const [sample, setSample] = useState(() => sampleText(config.source));
  const [headers, setHeaders] = useState(() => headerLinesOf(CHANNEL_SAMPLES[config.source].headers));
  const [eventId, setEventId] = useState('');
  const [local, setLocal] = useState<{ sample?: string; headers?: string }>({});
  const [sent, setSent] = useState<string | null>(null);
  const ids = { source: useId(), sample: useId(), sampleError: useId(), headers: useId(), headersHelp: useId(), eventId: useId() };
  const apiField = fieldOf(preview.error);

  const request = () => {
    const payload = parseJsonObject(sample);
    const headerValues = parseHeaderLines(headers);
    const problems = {
      ...('problem' in payload ? { sample: payload.problem } : {}),
      ...('problem' in headerValues ? { headers: headerValues.problem } : {}),
    };
    if ('problem' in payload || 'problem' in headerValues) return { problems };
    return {
      problems,
      body: {
        trigger: config,
        enabled,
        payload: payload.value,
        headers: headerValues.value,
        ...(arrivesOn ? { source: arrivesOn } : {}),
        ...(eventId.trim() ? { event_id: eventId.trim() } : {}),
      },
    };
  };
  const current = request();
  const stale = sent !== null && current.body !== undefined && JSON.stringify(current.body) !== sent;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setLocal(current.problems);
    if (!current.body) return;
    const body = current.body;
    preview.mutate(body, {
      onSuccess: () => {
        setSent(JSON.stringify(body));
        onInvalidField(undefined);
      },
      onError: (error) => {
        const field = fieldOf(error);
        onInvalidField(field?.startsWith('trigger.') || field === 'enabled' ? field : undefined);
      },
    });
  };
  const loadSample = () => {
    setSample(sampleText(channel));
    setHeaders(headerLinesOf(CHANNEL_SAMPLES[channel].headers));
    setLocal({});
  };

  const sampleInvalid = local.sample !== undefined || apiField === 'payload' || apiField?.startsWith('payload.') === true;
  return (
    <>
      <form className="auto-form" onSubmit={submit} aria-label="Preview the trigger">
        <p className="help">
          Paste a body as the sending system posts it. The preview runs the unsaved definition through the code a real inbound call runs;
          nothing is started or stored.
        </p>
        <div className="form-row">
          <div className="field">
            <label htmlFor={ids.source}>Arrives on</label>
            <select
              id={ids.source}
              value={arrivesOn}
              onChange={(e) => setArrivesOn(e.target.value as Channel | '')}
              aria-invalid={apiField === 'source'}
            >
              <option value="">The trigger&apos;s source: {channelLabel(config.source)}</option>
              {CHANNELS.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field field-action">
            <button type="button" className="button button-small" onClick={loadSample}>
              Use a {channelLabel(channel)} sample
            </button>
          </div>
        </div>
        <div className="field">
          <label htmlFor={ids.sample}>Sample payload (JSON)</label>
          <textarea
            id={ids.sample}
            className="auto-code"
            value={sample}
            onChange={(e) => setSample(e.target.value)}
            rows={12}
            spellCheck={false}
            aria-invalid={sampleInvalid}
            aria-describedby={local.sample !== undefined ? ids.sampleError : undefined}
          />
          {local.sample !== undefined && (
            <p id={ids.sampleError} className="auto-field-error">
              {local.sample}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={ids.headers}>Headers (optional)</label>
          <textarea
            id={ids.headers}
            className="auto-code"
            value={headers}
            onChange={(e) => setHeaders(e.target.value)}
            rows={2}
            spellCheck={false}
            placeholder="X-GitHub-Event: push"
            aria-invalid={local.headers !== undefined || apiField?.startsWith('headers') === true}
            aria-describedby={ids.headersHelp}
          />
          <p id={ids.headersHelp} className={local.headers !== undefined ? 'auto-field-error' : 'help'}>
            {local.headers ?? 'One "Name: value" per line. GitHub and Gitea name the event in X-GitHub-Event / X-Gitea-Event.'}
          </p>
        </div>
        <div className="form-row">
          <div className="field">
            <label htmlFor={ids.eventId}>Event id (optional)</label>
            <input
              id={ids.eventId}
              value={eventId}
              onChange={(e) => setEventId(e.target.value)}
              placeholder="evt_preview"
              aria-invalid={apiField === 'event_id'}
            />
          </div>
          <div className="field field-action">
            <button type="submit" className="button button-primary" disabled={preview.isPending}>
              {preview.isPending ? 'Previewing…' : 'Preview'}
            </button>
          </div>
        </div>
      </form>
      {preview.error !== null && <ErrorBanner error={preview.error} title="The preview was refused" />}
      {preview.data && !preview.isPending && preview.error === null && (
        <>
          {stale && (
            <p className="banner banner-info" role="status">
              The definition or the sample changed since this preview: preview again to see the change.
            </p>
          )}
          <PreviewResult preview={preview.data} />
        </>
      )}
    </>
  );
}
