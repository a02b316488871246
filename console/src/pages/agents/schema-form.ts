/**
 * A form generated from a JSON Schema (the agent requests of the served OpenAPI document): what
 * control each property gets, the form's values taken from an agent (or the schema's defaults), and
 * the request body built back from them.
 */
import type { JsonSchema } from '../../api/agents';

/** The control a property gets. */
export type FieldKind =
  | { kind: 'text'; nullable: boolean; multiline: boolean }
  | { kind: 'number'; nullable: boolean; integer: boolean }
  | { kind: 'boolean' }
  | { kind: 'select'; nullable: boolean; options: string[] }
  /** An array of strings: checkboxes of its enum or of a list endpoint's items, else one per line. */
  | { kind: 'multi'; options?: string[] }
  /** Nested properties, as a fieldset; nullable: switched on and off. */
  | { kind: 'object'; nullable: boolean }
  /** Free string labels (`additionalProperties: {type: string}`): key and value rows. */
  | { kind: 'map' }
  /** Anything else: its JSON text. */
  | { kind: 'json' };

const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** `anyOf [X, null]` as X, nullable; the outer description and default win. */
export function unwrapNullable(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (schema.anyOf) {
    const others = schema.anyOf.filter((s) => !typesOf(s).includes('null') || typesOf(s).length > 1);
    const nullable = others.length < schema.anyOf.length;
    if (others.length === 1) {
      const { anyOf: _anyOf, ...outer } = schema;
      const inner = unwrapNullable(others[0]!);
      return { schema: { ...inner.schema, ...outer }, nullable: nullable || inner.nullable };
    }
  }
  return { schema, nullable: typesOf(schema).includes('null') };
}

export function kindOf(original: JsonSchema): FieldKind {
  const { schema, nullable } = unwrapNullable(original);
  const type = typesOf(schema).find((t) => t !== 'null');
  switch (type) {
    case 'string':
      if (schema.enum) return { kind: 'select', nullable, options: schema.enum.map(String) };
      return { kind: 'text', nullable, multiline: (schema.maxLength ?? 0) > 1_000 };
    case 'integer':
    case 'number':
      return { kind: 'number', nullable, integer: type === 'integer' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array': {
      const items = schema.items ? unwrapNullable(schema.items).schema : undefined;
      if (items && typesOf(items).includes('string'))
        return items.enum ? { kind: 'multi', options: items.enum.map(String) } : { kind: 'multi' };
      return { kind: 'json' };
    }
    case 'object':
      if (schema.properties) return { kind: 'object', nullable };
      if (typeof schema.additionalProperties === 'object' && typesOf(schema.additionalProperties).includes('string'))
        return { kind: 'map' };
      return { kind: 'json' };
    default:
      return { kind: 'json' };
  }
}

/** A key and value row of a `map` field. */
export interface MapRow {
  key: string;
  value: string;
}

/**
 * The form's value of a field: text for text, numbers and selects (what the control holds), a
 * boolean, a list of strings, nested values (null: a nullable object switched off), map rows, or
 * JSON text.
 */
export type FormValue = string | boolean | string[] | MapRow[] | FormValues | null;
export interface FormValues {
  [name: string]: FormValue;
}

/** The form's value of `schema` for `value` (the agent's; undefined: the schema's default). */
function initialValue(schema: JsonSchema, value: unknown): FormValue {
  const field = kindOf(schema);
  const given = value === undefined ? unwrapNullable(schema).schema.default : value;
  switch (field.kind) {
    case 'text':
    case 'select':
      return typeof given === 'string' ? given : '';
    case 'number':
      return typeof given === 'number' ? String(given) : '';
    case 'boolean':
      return given === true;
    case 'multi':
      return Array.isArray(given) ? given.map(String) : [];
    case 'object': {
      if (field.nullable && (given === null || given === undefined)) return null;
      return initialValues(unwrapNullable(schema).schema, (given ?? {}) as Record<string, unknown>);
    }
    case 'map':
      return Object.entries((given ?? {}) as Record<string, unknown>).map(([key, v]) => ({ key, value: String(v) }));
    case 'json':
      return given === undefined ? '' : JSON.stringify(given, null, 2);
  }
}

/** The form's values of an object schema, from `values` (an agent) or the defaults. */
export function initialValues(schema: JsonSchema, values: Record<string, unknown> | undefined): FormValues {
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, property]) => [name, initialValue(property, values?.[name])]),
  );
}

/** The value the object's form holds for a property, when it switches on: its defaults. */
export const switchedOn = (schema: JsonSchema): FormValues => initialValues(unwrapNullable(schema).schema, undefined);

/**
 * `create`: a field left empty is left out (the API applies its default); `update` (PUT replaces
 * the fields it names): every field is sent, an emptied nullable one as null and an emptied text as
 * "", so what the form shows is what the agent becomes.
 */
export type BodyMode = 'create' | 'update';

const ABSENT = Symbol('absent');

function bodyValue(schema: JsonSchema, value: FormValue, mode: BodyMode, required: boolean): unknown {
  const field = kindOf(schema);
  switch (field.kind) {
    case 'text':
    case 'select': {
      const text = typeof value === 'string' ? value : '';
      if (text !== '') return text;
      if (required) return text;
      if (mode === 'create') return ABSENT;
      return field.nullable ? null : field.kind === 'text' ? '' : ABSENT;
    }
    case 'number': {
      const text = typeof value === 'string' ? value.trim() : '';
      if (text === '') return mode === 'update' && field.nullable ? null : ABSENT;
      const number = Number(text);
      // Not a number: sent as written, for the API to name the field.
      return Number.isFinite(number) ? number : text;
    }
    case 'boolean':
      return value === true;
    case 'multi': {
      const list = Array.isArray(value) ? (value as string[]).map((s) => s.trim()).filter((s) => s !== '') : [];
      return mode === 'create' && list.length === 0 && !required ? ABSENT : list;
    }
    case 'object': {
      if (value === null) return mode === 'update' ? null : ABSENT;
      const body = buildBody(unwrapNullable(schema).schema, value as FormValues, 'create');
      if (mode === 'create' && !field.nullable && !required && Object.keys(body).length === 0) return ABSENT;
      return body;
    }
    case 'map': {
      const rows = (Array.isArray(value) ? value : []) as MapRow[];
      const map = Object.fromEntries(rows.filter((row) => row.key.trim() !== '').map((row) => [row.key.trim(), row.value]));
      return mode === 'create' && Object.keys(map).length === 0 ? ABSENT : map;
    }
    case 'json': {
      const text = typeof value === 'string' ? value.trim() : '';
      if (text === '') return ABSENT;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
  }
}

/**
 * The request body of an object schema's form values. Nested objects are built as for a creation:
 * a PUT replaces a nested object whole, so what is left out of it is cleared.
 */
export function buildBody(schema: JsonSchema, values: FormValues, mode: BodyMode): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const value = bodyValue(property, values[name] ?? null, mode, schema.required?.includes(name) ?? false);
    if (value !== ABSENT) body[name] = value;
  }
  return body;
}
