/**
 * The client surface derived from the OpenAPI document: for every operation, its place (from
 * OPERATION_PLACES), parameters, body and reply, in a form both language emitters read.
 */
import { BROWSER_PAGES, OTHER_CLIENTS_OPERATIONS, OPERATION_PLACES } from './operations';

export interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  discriminator?: { propertyName: string; mapping?: Record<string, string> };
  description?: string;
  default?: unknown;
  format?: string;
  contentMediaType?: string;
  contentSchema?: JsonSchema;
}

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

interface OpenApiOperation {
  operationId: string;
  summary?: string;
  security?: unknown[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface Parameter {
  name: string;
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface Operation {
  operationId: string;
  summary: string;
  httpMethod: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  resource: string[];
  method: string;
  handWritten: boolean;
  pathParams: Parameter[];
  queryParams: Parameter[];
  /** The request body: JSON, or multipart/form-data with a binary `file` part; its component schema. */
  body?: { kind: 'json' | 'multipart'; schema: string; required: boolean };
  /** `data` of the success envelope: a component name; `raw` for a reply without the envelope. */
  reply: { kind: 'json'; schema: string } | { kind: 'raw' } | { kind: 'event-stream' };
  /** The reply is a page (`items`, `total`, `page`, `page_size`) and the operation takes `page`. */
  paginated: boolean;
  /** Sent with the API key (false: the inbound calls, signed instead, and health checks). */
  authenticated: boolean;
  /** Retried by default (false: a failure status is the answer, e.g. readiness' 503). */
  retried: boolean;
}

export const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/**
 * The schema of what a client hands over: a string carrying JSON (an event's SSE `data:` line) is
 * parsed by the clients, so it is what its `contentSchema` describes.
 */
export const parsedSchema = (schema: JsonSchema): JsonSchema =>
  schema.type === 'string' && schema.contentMediaType === 'application/json' && schema.contentSchema ? schema.contentSchema : schema;

function componentOf(schema: JsonSchema | undefined, where: string): string {
  if (!schema?.$ref) throw new Error(`${where}: expected a $ref to a component schema`);
  return refName(schema.$ref);
}

function replyOf(op: OpenApiOperation): Operation['reply'] {
  const success = op.responses['200'] ?? op.responses['202'];
  const content = success?.content ?? {};
  const json = content['application/json']?.schema;
  if (json?.properties?.data) return { kind: 'json', schema: componentOf(json.properties.data, `${op.operationId} reply`) };
  if (content['text/event-stream']) return { kind: 'event-stream' };
  return { kind: 'raw' };
}

function bodyOf(op: OpenApiOperation): Operation['body'] {
  const content = op.requestBody?.content;
  if (!content) return undefined;
  const required = op.requestBody?.required ?? false;
  if (content['application/json'])
    return { kind: 'json', schema: componentOf(content['application/json'].schema, op.operationId), required };
  if (content['multipart/form-data'])
    return { kind: 'multipart', schema: componentOf(content['multipart/form-data'].schema, op.operationId), required };
  throw new Error(`${op.operationId}: a request body of ${Object.keys(content).join(', ')} has no client form`);
}

/** Every operation of the document, in document order, placed; throws on any the table does not place. */
export function buildSurface(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  const seen = new Set<string>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      seen.add(op.operationId);
      if (BROWSER_PAGES.has(op.operationId) || OTHER_CLIENTS_OPERATIONS.has(op.operationId)) continue;
      const place = OPERATION_PLACES[op.operationId];
      if (!place)
        throw new Error(`operation ${op.operationId} (${method.toUpperCase()} ${path}) has no place in clients/codegen/operations.ts`);
      const params = (op.parameters ?? []).map((p) => ({ ...p, required: p.required ?? false }));
      const reply = replyOf(op);
      const queryParams = params.filter((p) => p.in === 'query');
      operations.push({
        operationId: op.operationId,
        summary: op.summary ?? '',
        httpMethod: method.toUpperCase() as Operation['httpMethod'],
        path,
        resource: place.resource,
        method: place.method,
        handWritten: place.handWritten ?? false,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams,
        body: bodyOf(op),
        reply,
        paginated: reply.kind === 'json' && reply.schema.endsWith('Page') && queryParams.some((p) => p.name === 'page'),
        authenticated: (op.security ?? []).length > 0,
        retried: !(place.noRetries ?? false),
      });
    }
  }
  const gone = Object.keys(OPERATION_PLACES).filter((id) => !seen.has(id));
  if (gone.length > 0) throw new Error(`clients/codegen/operations.ts places operations the document does not have: ${gone.join(', ')}`);
  return operations;
}

/** The resources as a tree: each node's operations and sub-resources, in first-seen order. */
export interface ResourceNode {
  path: string[];
  operations: Operation[];
  children: Map<string, ResourceNode>;
}

export function resourceTree(operations: Operation[]): ResourceNode {
  const root: ResourceNode = { path: [], operations: [], children: new Map() };
  for (const op of operations) {
    let node = root;
    for (const name of op.resource) {
      let child = node.children.get(name);
      if (!child) {
        child = { path: [...node.path, name], operations: [], children: new Map() };
        node.children.set(name, child);
      }
      node = child;
    }
    node.operations.push(op);
  }
  return root;
}
