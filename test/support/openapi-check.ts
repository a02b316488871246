import Ajv2020, { type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { appendFileSync } from 'node:fs';

/**
 * Checks every response a test receives against the served OpenAPI document, so the document
 * cannot drift from what the server sends. OpenAPI 3.1 schemas are JSON Schema 2020-12: the whole
 * document is added to ajv and each response schema is compiled by its JSON pointer, so its
 * `#/components/schemas/...` references resolve against the document.
 */

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

interface Checker {
  ajv: Ajv2020;
  /** Path templates as patterns, literal paths first (`/v1/webhook/replays` before `/v1/webhook/{channel}`). */
  paths: { template: string; pattern: RegExp; params: number }[];
  doc: Document;
  compiled: Map<string, ValidateFunction | null>;
}

const DOC_ID = 'openapi.json';
// One document per process: every test API serves the same one.
let checker: Promise<Checker> | undefined;

function loadChecker(baseUrl: string): Promise<Checker> {
  checker ??= (async () => {
    const res = await fetch(`${baseUrl}/v1/openapi.json`);
    const doc = (await res.json()) as Document;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    checkJsonContent(ajv);
    ajv.addSchema(closeObjects(structuredClone(doc)) as object, DOC_ID);
    const paths = Object.keys(doc.paths)
      .map((template) => ({
        template,
        params: (template.match(/\{/g) ?? []).length,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => a.params - b.params);
    return { ajv, paths, doc, compiled: new Map() };
  })();
  return checker;
}

/**
 * JSON Schema 2020-12 makes `contentSchema` an annotation only. A string whose `contentMediaType` is
 * application/json (an SSE `data:` line) is parsed here and held to it, as outside validators that
 * read the wire (schemathesis) do; its `$ref`s name the document's components.
 */
function checkJsonContent(ajv: Ajv2020): void {
  ajv.removeKeyword('contentSchema');
  ajv.addKeyword({
    keyword: 'contentSchema',
    schemaType: ['object', 'boolean'],
    compile(contentSchema: object | boolean, parentSchema: AnySchemaObject) {
      if (parentSchema.contentMediaType !== 'application/json') return () => true;
      const rebased =
        typeof contentSchema === 'object' && '$ref' in contentSchema && String(contentSchema.$ref).startsWith('#')
          ? { $ref: `${DOC_ID}${String(contentSchema.$ref)}` }
          : contentSchema;
      const validateParsed = ajv.compile(rebased);
      const validate = (data: unknown): boolean => {
        if (typeof data !== 'string') return true;
        let parsed: unknown;
        try {
          parsed = JSON.parse(data);
        } catch (err) {
          validate.errors = [
            { keyword: 'contentSchema', instancePath: '', schemaPath: '', params: {}, message: `not JSON: ${String(err)}` },
          ];
          return false;
        }
        const valid = validateParsed(parsed);
        validate.errors = validateParsed.errors ?? undefined;
        return valid;
      };
      validate.errors = undefined as Partial<ErrorObject>[] | undefined;
      return validate;
    },
  });
}

/**
 * A field the server sends that the document does not name is a mismatch too: objects that say
 * nothing about other properties are closed here (unevaluatedProperties, so that `anyOf`
 * branches still see their own properties). Objects that allow any property say so explicitly.
 */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) node.forEach(closeObjects);
  else if (node && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    for (const value of Object.values(schema)) closeObjects(value);
    if (
      schema.properties &&
      typeof schema.properties === 'object' &&
      !('additionalProperties' in schema) &&
      !('unevaluatedProperties' in schema)
    ) {
      schema.unevaluatedProperties = false;
    }
  }
  return node;
}

const pointer = (...segments: string[]) => segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

function validatorAt(c: Checker, ref: string): ValidateFunction {
  let fn = c.compiled.get(ref);
  if (!fn) {
    fn = c.ajv.compile({ $ref: ref });
    c.compiled.set(ref, fn);
  }
  return fn;
}

export interface Exchange {
  method: string;
  /** Path as requested (query string allowed). */
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

function findOperation(c: Checker, method: string, path: string) {
  const bare = path.split('?')[0]!;
  const m = method.toLowerCase();
  const matches = c.paths.filter((p) => p.pattern.test(bare));
  const found = matches.find((p) => c.doc.paths[p.template]![m]);
  return found
    ? { template: found.template, operation: c.doc.paths[found.template]![m]! }
    : matches.length > 0
      ? { template: matches[0]!.template, operation: undefined }
      : undefined;
}

function fail(what: string, errors: unknown, body: unknown): never {
  throw new Error(
    `response does not match the OpenAPI document: ${what}\n${JSON.stringify(errors, null, 1)}\nbody: ${JSON.stringify(body)?.slice(0, 4000)}`,
  );
}

/**
 * Throws unless the JSON body is what the document declares for this operation and status.
 * An unknown path or method must be answered with the error envelope (10004); a status the
 * operation does not declare is a mismatch.
 */
export async function checkResponse(baseUrl: string, x: Exchange): Promise<void> {
  if (!x.contentType?.includes('application/json')) return;
  const c = await loadChecker(baseUrl);
  const found = findOperation(c, x.method, x.path);
  const what = `${x.method.toUpperCase()} ${found?.template ?? x.path} -> ${x.status}`;
  if (!found?.operation) {
    const validate = validatorAt(c, `${DOC_ID}#/${pointer('components', 'schemas', 'Error')}`);
    if (x.status < 400 || !validate(x.body)) fail(`${what} (no such operation): not the error envelope`, validate.errors, x.body);
    return;
  }
  const m = x.method.toLowerCase();
  // Which operations and statuses the tests exercise, for whoever wants to see the coverage.
  if (process.env.OPENAPI_COVERAGE_FILE)
    appendFileSync(process.env.OPENAPI_COVERAGE_FILE, `${x.method.toUpperCase()} ${found.template} ${x.status}\n`);
  const response = found.operation.responses?.[String(x.status)];
  if (!response) fail(`${what}: status not declared`, [], x.body);
  // Raw operations (the document itself) declare no JSON content; nothing to check against.
  if (!response.content?.['application/json']) {
    if (response.content) fail(`${what}: JSON answered where ${Object.keys(response.content).join(', ')} is declared`, [], x.body);
    return;
  }
  const validate = validatorAt(
    c,
    `${DOC_ID}#/${pointer('paths', found.template, m, 'responses', String(x.status), 'content', 'application/json', 'schema')}`,
  );
  if (!validate(x.body)) fail(what, validate.errors, x.body);
}

/**
 * Throws unless one server-sent event, as on the wire (`data` the text of its `data:` line), matches
 * its operation's text/event-stream schema (one schema per event name, `data` a string whose JSON
 * its `contentSchema` describes).
 */
export async function checkStreamEvent(
  baseUrl: string,
  method: string,
  path: string,
  event: { event: string; id: string | undefined; data: string },
): Promise<void> {
  const c = await loadChecker(baseUrl);
  const found = findOperation(c, method, path);
  const what = `${method.toUpperCase()} ${found?.template ?? path} event ${event.event}`;
  const m = method.toLowerCase();
  if (!found?.operation?.responses?.['200']?.content?.['text/event-stream']) fail(`${what}: no text/event-stream declared`, [], event);
  const validate = validatorAt(
    c,
    `${DOC_ID}#/${pointer('paths', found.template, m, 'responses', '200', 'content', 'text/event-stream', 'schema')}`,
  );
  if (!validate(event)) fail(what, validate.errors, event);
}
