/**
 * The controls of a schema-generated form: one per property, chosen by schema-form.ts (text and
 * text areas, numbers with their bounds, selects of enums, checkboxes, checkbox lists of enums or of
 * a list endpoint's items, fieldsets of nested objects, key and value rows). Each shows its
 * schema's description and bounds, and the API's validation message when `data.field` names it.
 */
import type { ReactNode } from 'react';
import type { Choice, JsonSchema } from '../../api/agents';
import { type FormValue, type FormValues, kindOf, type MapRow, switchedOn, unwrapNullable } from './schema-form';

/** Where the form's choices and hints come from, by a property's dotted path (`kb_ids`, `approval.tools`). */
export interface FieldSources {
  /** Checkbox choices of an array of ids (a list endpoint's items); undefined while loading. */
  choices: Record<string, Choice[] | undefined>;
  /** What to do when a list of choices is empty ("Create one under Knowledge"). */
  emptyHints: Record<string, ReactNode>;
  /** Suggestions of a text field (a datalist). */
  suggestions: Record<string, string[] | undefined>;
  /** Labels of properties (the property's name, humanised, otherwise). */
  labels: Record<string, string>;
}

/** The API's validation failure as the form shows it: the field it names (without `body.`) and its message. */
export interface FieldError {
  field: string;
  message: string;
}

/** The id of a property's control: the form's prefix and its path. */
export const controlId = (prefix: string, path: string) => `${prefix}-${path.replace(/[^A-Za-z0-9_-]/g, '-')}`;

const humanise = (name: string) => {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** A plain value as text (objects and arrays are left out of hints). */
const plain = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

/** The schema's bounds in words ("0 to 2", "at most 100 characters"). */
function bounds(schema: JsonSchema): string[] {
  const out: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined) out.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) out.push(`at least ${schema.minimum}`);
  else if (schema.maximum !== undefined) out.push(`at most ${schema.maximum}`);
  if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  if (schema.maxItems !== undefined) out.push(`at most ${schema.maxItems}`);
  const example = plain(schema.example);
  if (example !== undefined) out.push(`e.g. ${example}`);
  const fallback = plain(schema.default);
  if (fallback) out.push(`default ${fallback}`);
  return out;
}

/** A required field's mark (the control's `required` tells assistive technology). */
const RequiredMark = () => (
  <span className="agents-required" aria-hidden="true">
    {' '}
    *
  </span>
);

interface FieldsProps {
  schema: JsonSchema;
  values: FormValues;
  onChange: (name: string, value: FormValue) => void;
  /** The dotted path of the object these fields belong to ('' at the top). */
  path: string;
  idPrefix: string;
  sources: FieldSources;
  error: FieldError | undefined;
  disabled: boolean;
}

/** Every property of an object schema, in the schema's order. */
export function SchemaFields({ schema, values, onChange, path, idPrefix, sources, error, disabled }: FieldsProps) {
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, property]) => (
        <SchemaField
          key={name}
          name={name}
          schema={property}
          required={schema.required?.includes(name) ?? false}
          value={values[name] ?? null}
          onChange={(value) => onChange(name, value)}
          path={path ? `${path}.${name}` : name}
          idPrefix={idPrefix}
          sources={sources}
          error={error}
          disabled={disabled}
        />
      ))}
    </>
  );
}

interface FieldProps {
  name: string;
  schema: JsonSchema;
  required: boolean;
  value: FormValue;
  onChange: (value: FormValue) => void;
  path: string;
  idPrefix: string;
  sources: FieldSources;
  error: FieldError | undefined;
  disabled: boolean;
}

/** The message for this field when the API's `data.field` names it or a part of it (`kb_ids.1`). */
function errorFor(error: FieldError | undefined, path: string, leaf: boolean): string | undefined {
  if (!error) return undefined;
  if (error.field === path) return error.message;
  if (leaf && error.field.startsWith(`${path}.`)) return error.message;
  return undefined;
}

function SchemaField({ name, schema, required, value, onChange, path, idPrefix, sources, error, disabled }: FieldProps) {
  const field = kindOf(schema);
  const inner = unwrapNullable(schema).schema;
  const label = sources.labels[path] ?? humanise(name);
  const id = controlId(idPrefix, path);
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const limits = bounds(inner);
  const help =
    inner.description || limits.length > 0 ? (
      <p id={helpId} className="agents-help">
        {inner.description}
        {inner.description && limits.length > 0 && ' '}
        {limits.length > 0 && <span className="agents-bounds">({limits.join('; ')})</span>}
      </p>
    ) : null;
  const message = errorFor(error, path, field.kind !== 'object');
  const problem = message ? (
    <p id={errorId} className="agents-field-error">
      {message}
    </p>
  ) : null;
  const describedBy = [help ? helpId : '', problem ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': message ? true : undefined, disabled };

  switch (field.kind) {
    case 'text': {
      const suggestions = sources.suggestions[path];
      const listId = suggestions ? `${id}-suggestions` : undefined;
      return (
        <div className={`agents-field${field.multiline ? ' agents-field-wide' : ''}`}>
          <label htmlFor={id}>
            {label}
            {required && <RequiredMark />}
          </label>
          {field.multiline ? (
            <textarea
              {...common}
              value={value as string}
              rows={5}
              maxLength={inner.maxLength}
              required={required}
              onChange={(event) => onChange(event.target.value)}
            />
          ) : (
            <input
              {...common}
              type="text"
              value={value as string}
              maxLength={inner.maxLength}
              required={required}
              list={listId}
              autoComplete="off"
              placeholder={field.nullable ? 'none' : undefined}
              onChange={(event) => onChange(event.target.value)}
            />
          )}
          {suggestions && (
            <datalist id={listId}>
              {suggestions.map((suggestion) => (
                <option key={suggestion} value={suggestion} />
              ))}
            </datalist>
          )}
          {help}
          {problem}
        </div>
      );
    }
    case 'number':
      return (
        <div className="agents-field">
          <label htmlFor={id}>
            {label}
            {required && <RequiredMark />}
          </label>
          <input
            {...common}
            type="number"
            inputMode={field.integer ? 'numeric' : 'decimal'}
            value={value as string}
            min={inner.minimum}
            max={inner.maximum}
            step={field.integer ? 1 : 'any'}
            required={required}
            onChange={(event) => onChange(event.target.value)}
          />
          {help}
          {problem}
        </div>
      );
    case 'boolean':
      return (
        <div className="agents-field agents-field-check">
          <input {...common} type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} />
          <label htmlFor={id}>{label}</label>
          {help}
          {problem}
        </div>
      );
    case 'select':
      return (
        <div className="agents-field">
          <label htmlFor={id}>
            {label}
            {required && <RequiredMark />}
          </label>
          <select {...common} value={value as string} required={required} onChange={(event) => onChange(event.target.value)}>
            {(!required || value === '') && <option value="">{field.nullable ? 'none' : 'not set'}</option>}
            {field.options.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
          {help}
          {problem}
        </div>
      );
    case 'multi': {
      const selected = (value ?? []) as string[];
      const fed = sources.choices[path];
      const enumChoices: Choice[] | undefined = field.options?.map((option) => ({ value: option, label: option }));
      const fromSource = path in sources.choices;
      const choices = enumChoices ?? fed;
      if (!enumChoices && !fromSource) {
        // Free strings: one per line.
        return (
          <div className="agents-field agents-field-wide">
            <label htmlFor={id}>
              {label} <span className="agents-required">(one per line)</span>
            </label>
            <textarea {...common} rows={3} value={selected.join('\n')} onChange={(event) => onChange(event.target.value.split('\n'))} />
            {help}
            {problem}
          </div>
        );
      }
      // What the agent has that the list no longer offers stays visible (and can be unticked).
      const known = new Set((choices ?? []).map((choice) => choice.value));
      const all: Choice[] = [
        ...(choices ?? []),
        ...selected.filter((v) => !known.has(v)).map((v) => ({ value: v, label: v, hint: 'not found in the list' })),
      ];
      const toggle = (choice: string, on: boolean) =>
        onChange(on ? [...selected.filter((v) => v !== choice), choice] : selected.filter((v) => v !== choice));
      return (
        <fieldset
          id={id}
          className="agents-fieldset agents-choices"
          aria-describedby={describedBy}
          aria-invalid={message ? true : undefined}
        >
          <legend>{label}</legend>
          {help}
          {choices === undefined ? (
            <p className="muted">Loading the choices…</p>
          ) : all.length === 0 ? (
            <p className="muted">{sources.emptyHints[path] ?? 'Nothing to choose from yet.'}</p>
          ) : (
            <ul className="agents-choice-list">
              {all.map((choice, index) => {
                const choiceId = `${id}-${index}`;
                return (
                  <li key={choice.value}>
                    <input
                      id={choiceId}
                      type="checkbox"
                      checked={selected.includes(choice.value)}
                      disabled={disabled}
                      onChange={(event) => toggle(choice.value, event.target.checked)}
                    />
                    <label htmlFor={choiceId}>
                      {choice.label}
                      {choice.hint && <span className="agents-choice-hint"> {choice.hint}</span>}
                    </label>
                  </li>
                );
              })}
            </ul>
          )}
          {problem}
        </fieldset>
      );
    }
    case 'object': {
      const nested = value as FormValues | null;
      return (
        <fieldset id={id} className="agents-fieldset" aria-describedby={describedBy}>
          <legend>{label}</legend>
          {help}
          {field.nullable && (
            <div className="agents-field agents-field-check">
              <input
                id={`${id}-enabled`}
                type="checkbox"
                checked={nested !== null}
                disabled={disabled}
                onChange={(event) => onChange(event.target.checked ? switchedOn(schema) : null)}
              />
              <label htmlFor={`${id}-enabled`}>
                Enable<span className="visually-hidden"> {label.toLowerCase()}</span>
              </label>
            </div>
          )}
          {nested !== null && (
            <div className="agents-fields">
              <SchemaFields
                schema={inner}
                values={nested}
                onChange={(name, v) => onChange({ ...nested, [name]: v })}
                path={path}
                idPrefix={idPrefix}
                sources={sources}
                error={error}
                disabled={disabled}
              />
            </div>
          )}
          {problem}
        </fieldset>
      );
    }
    case 'map': {
      const rows = (value ?? []) as MapRow[];
      const set = (index: number, row: MapRow) => onChange(rows.map((r, i) => (i === index ? row : r)));
      return (
        <fieldset
          id={id}
          className="agents-fieldset agents-field-wide"
          aria-describedby={describedBy}
          aria-invalid={message ? true : undefined}
        >
          <legend>{label}</legend>
          {help}
          {rows.length === 0 && <p className="muted">None.</p>}
          {rows.map((row, index) => (
            <div className="agents-map-row" key={index}>
              <label className="visually-hidden" htmlFor={`${id}-${index}-key`}>
                {label} {index + 1}: key
              </label>
              <input
                id={`${id}-${index}-key`}
                value={row.key}
                placeholder="key"
                disabled={disabled}
                onChange={(event) => set(index, { ...row, key: event.target.value })}
              />
              <label className="visually-hidden" htmlFor={`${id}-${index}-value`}>
                {label} {index + 1}: value
              </label>
              <input
                id={`${id}-${index}-value`}
                value={row.value}
                placeholder="value"
                disabled={disabled}
                maxLength={typeof inner.additionalProperties === 'object' ? inner.additionalProperties.maxLength : undefined}
                onChange={(event) => set(index, { ...row, value: event.target.value })}
              />
              <button
                type="button"
                className="button button-small button-quiet"
                disabled={disabled}
                onClick={() => onChange(rows.filter((_, i) => i !== index))}
              >
                Remove
                <span className="visually-hidden">
                  {' '}
                  {label.toLowerCase()} {index + 1}
                </span>
              </button>
            </div>
          ))}
          <button
            type="button"
            className="button button-small"
            disabled={disabled}
            onClick={() => onChange([...rows, { key: '', value: '' }])}
          >
            Add<span className="visually-hidden"> to {label.toLowerCase()}</span>
          </button>
          {problem}
        </fieldset>
      );
    }
    case 'json':
      return (
        <div className="agents-field agents-field-wide">
          <label htmlFor={id}>
            {label} <span className="agents-required">(JSON)</span>
          </label>
          <textarea
            {...common}
            rows={4}
            className="agents-code"
            value={value as string}
            onChange={(event) => onChange(event.target.value)}
          />
          {help}
          {problem}
        </div>
      );
  }
}
