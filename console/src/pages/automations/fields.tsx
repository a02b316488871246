/**
 * Form controls the trigger, cron and skill forms share: the agent picker, the session-template
 * picker, the inputs editor (name → value rows), JSON and header text read for a request.
 */
import type { SessionTemplateList } from '@combo/client';
import { type ReactNode, useId } from 'react';
import { Link } from 'react-router';
import { PICKER_PAGE, useAgentChoices, useSessionTemplates } from '../../api/automations';
import { errorDetails } from '../../api/errors';

export type TemplateName = 'default' | 'code-review' | 'import-requirements' | 'import-bugs';

/**
 * An agent picked from the newest agents; when there are more than a picker lists (or they cannot be
 * listed), its id is typed, with the newest offered as suggestions.
 */
export function AgentSelect({
  value,
  onChange,
  invalid,
  label = 'Agent',
}: {
  value: string;
  onChange: (agentId: string) => void;
  invalid?: boolean;
  label?: string;
}) {
  const id = useId();
  const helpId = useId();
  const listId = useId();
  const agents = useAgentChoices();
  const items = agents.data?.items ?? [];
  const typed = agents.error !== null || (agents.data !== undefined && agents.data.total > PICKER_PAGE);
  const help = agents.error
    ? `Could not list the agents (${errorDetails(agents.error).message}): type the agent's id.`
    : agents.data && agents.data.total > PICKER_PAGE
      ? `Type the agent's id; the ${PICKER_PAGE} newest of ${agents.data.total} agents are suggested.`
      : null;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {typed ? (
        <>
          <input
            id={id}
            value={value}
            onChange={(e) => onChange(e.target.value.trim())}
            required
            list={listId}
            placeholder="agt_…"
            aria-invalid={invalid}
            aria-describedby={helpId}
          />
          <datalist id={listId}>
            {items.map((agent) => (
              <option key={agent.agent_id} value={agent.agent_id}>
                {agent.name}
              </option>
            ))}
          </datalist>
        </>
      ) : (
        <select
          id={id}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          required
          aria-invalid={invalid}
          aria-describedby={agents.data && items.length === 0 ? helpId : undefined}
          disabled={agents.isLoading}
        >
          <option value="">{agents.isLoading ? 'Loading agents…' : 'Choose an agent'}</option>
          {items.map((agent) => (
            <option key={agent.agent_id} value={agent.agent_id} title={agent.name}>
              {agent.name.length > 60 ? `${agent.name.slice(0, 59)}…` : agent.name} ({agent.agent_id})
            </option>
          ))}
          {value !== '' && !items.some((a) => a.agent_id === value) && <option value={value}>{value}</option>}
        </select>
      )}
      {help ? (
        <p id={helpId} className="help">
          {help}
        </p>
      ) : agents.data && items.length === 0 ? (
        <p id={helpId} className="help">
          No agents yet: create one in <Link to="/agents">Agents</Link> first.
        </p>
      ) : null}
    </div>
  );
}

/** The session template (`GET /v1/event-trigger/templates`), with what the chosen one does. */
export function TemplateSelect({
  value,
  onChange,
  invalid,
}: {
  value: TemplateName;
  onChange: (name: TemplateName) => void;
  invalid?: boolean;
}) {
  const id = useId();
  const helpId = useId();
  const templates = useSessionTemplates();
  const items: SessionTemplateList['items'] = templates.data ?? [{ name: 'default', description: '', route: '' }];
  const chosen = items.find((t) => t.name === value);
  return (
    <div className="field">
      <label htmlFor={id}>Session template</label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value as TemplateName)}
        aria-invalid={invalid}
        aria-describedby={helpId}
      >
        {items.map((template) => (
          <option key={template.name} value={template.name}>
            {template.name}
          </option>
        ))}
      </select>
      <p id={helpId} className="help auto-template-help">
        {templates.error
          ? `Could not list the templates: ${errorDetails(templates.error).message}`
          : chosen
            ? `${chosen.description}${chosen.route ? ` Route: ${chosen.route}` : ''}`
            : ''}
      </p>
    </div>
  );
}

export interface InputRow {
  key: number;
  name: string;
  value: string;
}

let nextRowKey = 1;
const inputRow = (name = '', value = ''): InputRow => ({ key: nextRowKey++, name, value });
export const inputRowsOf = (inputs: Record<string, string> | undefined): InputRow[] =>
  Object.entries(inputs ?? {}).map(([name, value]) => inputRow(name, value));
export const inputsOf = (rows: InputRow[]): Record<string, string> =>
  Object.fromEntries(rows.filter((row) => row.name.trim() !== '').map((row) => [row.name.trim(), row.value]));

/** Name → value rows (add, remove); `invalidName` marks the row the API's field names. */
export function InputsEditor({
  rows,
  onChange,
  valueLabel,
  placeholder,
  invalidName,
  legend,
  help,
}: {
  rows: InputRow[];
  onChange: (rows: InputRow[]) => void;
  valueLabel: string;
  placeholder: string;
  invalidName?: string;
  legend: string;
  help: ReactNode;
}) {
  const helpId = useId();
  const set = (key: number, change: Partial<InputRow>) => onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  return (
    <fieldset className="auto-inputs" aria-describedby={helpId}>
      <legend>{legend}</legend>
      <p id={helpId} className="help">
        {help}
      </p>
      {rows.length > 0 && (
        <ul className="auto-input-rows">
          {rows.map((row, index) => {
            const invalid = invalidName !== undefined && row.name.trim() === invalidName;
            return (
              <li key={row.key} className="auto-input-row">
                <label className="visually-hidden" htmlFor={`input-name-${row.key}`}>
                  Name of input {index + 1}
                </label>
                <input
                  id={`input-name-${row.key}`}
                  className="auto-input-name"
                  value={row.name}
                  onChange={(e) => set(row.key, { name: e.target.value })}
                  placeholder="name"
                  pattern="[a-z][a-z0-9_]{0,39}"
                  title="1-40 of a-z, 0-9 and _, starting with a letter"
                  aria-invalid={invalid}
                />
                <label className="visually-hidden" htmlFor={`input-value-${row.key}`}>
                  {valueLabel} {index + 1}
                </label>
                <input
                  id={`input-value-${row.key}`}
                  className="auto-input-value"
                  value={row.value}
                  onChange={(e) => set(row.key, { value: e.target.value })}
                  placeholder={placeholder}
                  aria-invalid={invalid}
                />
                <button
                  type="button"
                  className="button button-small button-danger-quiet"
                  onClick={() => onChange(rows.filter((r) => r.key !== row.key))}
                  aria-label={`Remove input ${index + 1}${row.name ? ` (${row.name})` : ''}`}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <button type="button" className="button button-small" onClick={() => onChange([...rows, inputRow()])}>
        Add input
      </button>
    </fieldset>
  );
}

/** A JSON object typed by a person: the object, or what is wrong with the text. */
export function parseJsonObject(text: string): { value: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'Must be a JSON object ({ … }).' };
  return { value: value as Record<string, unknown> };
}

/** `Name: value` lines as headers; blank lines are skipped. */
export function parseHeaderLines(text: string): { value: Record<string, string> } | { problem: string } {
  const headers: Record<string, string> = {};
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return { problem: `Line ${index + 1} is not "Name: value".` };
    headers[name] = line.slice(colon + 1).trim();
  }
  return { value: headers };
}

export const headerLinesOf = (headers: Record<string, string>): string =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');

/** A definition list of facts (label → value). */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="auto-facts">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
