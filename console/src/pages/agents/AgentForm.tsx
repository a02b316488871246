/**
 * The agent form, generated from the request schema the served OpenAPI document gives
 * (`CreateAgentRequest` to create, `UpdateAgentRequest` to edit): every field with its description
 * and bounds; knowledge bases, skills and approval tools as checkbox lists fed by their list
 * endpoints; the default route with the routes there are as suggestions. The API checks it: its
 * validation message lands on the field its `data.field` names, which is focused.
 */
import type { Agent } from '@combo/client';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import { type JsonSchema, useAgentFormChoices, useRoutes } from '../../api/agents';
import { errorDetails, fieldOf } from '../../api/errors';
import { ErrorBanner } from '../../components/ErrorBanner';
import { type BodyMode, buildBody, type FormValue, type FormValues, initialValues } from './schema-form';
import { controlId, type FieldError, type FieldSources, SchemaFields } from './SchemaFields';

const LABELS: Record<string, string> = {
  kb_ids: 'Knowledge bases',
  skills: 'Skills',
  tools: 'Built-in tools',
  default_route: 'Default route',
  multitask_strategy: 'Concurrent runs on a session',
  metadata: 'Labels',
  'model.model': 'Model name',
  'model.max_tokens': 'Max tokens per call',
  approval: 'Approval of tool calls',
  'approval.tools': 'Tools that need approval',
  'approval.timeout_s': 'Approval timeout (seconds)',
  'approval.separate_duties': 'Separation of duties',
};

interface AgentFormProps {
  schema: JsonSchema;
  mode: BodyMode;
  /** The agent edited (undefined: a new one, from the schema's defaults). */
  agent?: Agent;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (body: Record<string, unknown>) => void;
  /** Where Cancel goes. */
  cancelTo: string;
}

export function AgentForm({ schema, mode, agent, submitLabel, pending, error, onSubmit, cancelTo }: AgentFormProps) {
  const idPrefix = useId().replace(/:/g, '');
  const [values, setValues] = useState<FormValues>(() => initialValues(schema, agent as unknown as Record<string, unknown> | undefined));
  const choices = useAgentFormChoices();
  const routes = useRoutes();
  const builtIn = (schema.properties?.tools?.items?.enum ?? []).map(String);

  const sources: FieldSources = {
    choices: {
      kb_ids: choices.kbChoices,
      skills: choices.skillChoices,
      'approval.tools': choices.skillTools && [
        ...builtIn.map((tool) => ({ value: tool, label: tool, hint: 'built-in tool' })),
        ...choices.skillTools,
      ],
    },
    emptyHints: {
      kb_ids: (
        <>
          No knowledge bases yet: create one under <Link to="/knowledge">Knowledge</Link>.
        </>
      ),
      skills: (
        <>
          No skills installed yet: install one under <Link to="/skills">Skills</Link>.
        </>
      ),
    },
    suggestions: { default_route: routes.data?.map((route) => route.route) },
    labels: LABELS,
  };

  const field = fieldOf(error);
  const fieldError: FieldError | undefined = field ? { field, message: errorDetails(error).message } : undefined;

  // The field the API named gets the focus (its first control, for a fieldset).
  useEffect(() => {
    if (!field) return;
    const parts = field.split('.');
    for (let length = parts.length; length > 0; length--) {
      const element = document.getElementById(controlId(idPrefix, parts.slice(0, length).join('.')));
      if (!element) continue;
      const target =
        element instanceof HTMLFieldSetElement ? element.querySelector<HTMLElement>('input, select, textarea, button') : element;
      target?.focus();
      return;
    }
  }, [error, field, idPrefix]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(buildBody(schema, values, mode));
  };

  return (
    <form className="agents-form" onSubmit={submit} aria-label={mode === 'create' ? 'New agent' : 'Edit agent'}>
      {error !== null && error !== undefined && (
        <ErrorBanner error={error} title={mode === 'create' ? 'Could not create the agent' : 'Could not save the agent'} />
      )}
      {choices.error !== null && choices.error !== undefined && (
        <ErrorBanner error={choices.error} title="Could not load the knowledge bases and skills to choose from" />
      )}
      <p className="agents-help">Fields marked * are required. The service checks every field when you save.</p>
      <div className="agents-fields">
        <SchemaFields
          schema={schema}
          values={values}
          onChange={(name: string, value: FormValue) => setValues((all) => ({ ...all, [name]: value }))}
          path=""
          idPrefix={idPrefix}
          sources={sources}
          error={fieldError}
          disabled={pending}
        />
      </div>
      <div className="agents-form-actions">
        <button type="submit" className="button button-primary" disabled={pending}>
          {pending ? 'Saving…' : submitLabel}
        </button>
        <Link className="button agents-link-button" to={cancelTo}>
          Cancel
        </Link>
      </div>
    </form>
  );
}
