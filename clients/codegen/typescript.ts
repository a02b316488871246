/**
 * The TypeScript client's generated files (clients/typescript/src/generated/):
 *
 * - `models.ts`: one exported interface or type per component schema of the document (enums as
 *   string-literal unions, each with a `<Name>Values` array of its values, `type: [x, "null"]` as `X | null`, optional properties as `?`,
 *   `additionalProperties` as an index signature or a Record, the `CompletionEvent` oneOf as a union
 *   discriminated by `event`, a string carrying JSON (an event's `data`, which the client parses) as
 *   its `contentSchema`).
 * - `resources.ts`: one class per resource node with one method per operation that is not written
 *   by hand (path parameters positional and camelCased, then one params object: the JSON body, the
 *   query, or the multipart fields; a query flag, a string enum of `"true"` and `"false"`, is a
 *   `boolean`; then the RequestOptions), the `OPERATIONS` table, and `ComboBase`,
 *   which builds the resource tree; the classes written by hand (src/resources/) are passed to it.
 *
 * Both are formatted with the repository's prettier configuration, so they compare byte for byte
 * with the committed files.
 */
import { dirname, join, resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { parsedSchema, refName, resourceTree, type JsonSchema, type OpenApiDocument, type Operation, type ResourceNode } from './surface';

const CLIENTS_DIR = resolve(__dirname, '..').replace(/\/dist\/clients$/, '/clients');
const MODELS = 'typescript/src/generated/models.ts';
const RESOURCES = 'typescript/src/generated/resources.ts';
const HEADER = '// Generated from clients/openapi.json by clients/codegen/typescript.ts (npm run clients:generate): do not edit.';

/** Resources given methods by hand besides their hand-written operations (src/resources/<name>.ts). */
const EXTENDED_BY_HAND = new Set(['documents']);
/** POSTs that only read, so that 502 and 504 are retried as for a GET. */
const READ_ONLY_POSTS = new Set(['searchChunks']);

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const camel = (name: string) => name.replace(/[_-]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const className = (path: string[]) => path.map(pascal).join('');
const literal = (value: unknown) =>
  typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(value);
const validIdentifier = (name: string) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
const key = (name: string) => (validIdentifier(name) ? name : literal(name));

/** A JSDoc block (empty when there is nothing to say). */
function doc(lines: (string | undefined)[]): string {
  const text = lines
    .filter((line): line is string => line !== undefined && line.trim() !== '')
    .flatMap((line) => line.split('\n'))
    .map((line) => line.replace(/\*\//g, '*\\/').trimEnd());
  if (text.length === 0) return '';
  if (text.length === 1) return `/** ${text[0]} */\n`;
  return `/**\n${text.map((line) => ` * ${line}`.trimEnd()).join('\n')}\n */\n`;
}

const defaultLine = (schema: JsonSchema) => (schema.default === undefined ? undefined : `@default ${JSON.stringify(schema.default)}`);

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  const rest = unique.filter((t) => t !== 'null');
  return [...rest, ...(unique.includes('null') ? ['null'] : [])].join(' | ');
}

/** The TypeScript type of a schema. */
function tsType(schema: JsonSchema | undefined): string {
  if (!schema) return 'unknown';
  if (schema.$ref) return refName(schema.$ref);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return union(alternatives.map(tsType));
  if (schema.enum) return union(schema.enum.map((v) => (v === null ? 'null' : literal(v))));
  if (Array.isArray(schema.type)) return union(schema.type.map((type) => tsType({ ...schema, type })));
  switch (schema.type) {
    case 'string':
      return schema.format === 'binary' ? 'Uploadable' : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = tsType(schema.items);
      return /[ |&]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return objectType(schema);
    default:
      return 'unknown';
  }
}

/** The value type of an object's index signature, or undefined when it has none. */
function indexType(schema: JsonSchema): string | undefined {
  const extra = schema.additionalProperties;
  if (extra === undefined || extra === false) return schema.properties ? undefined : 'unknown';
  return extra === true ? 'unknown' : tsType(extra);
}

function objectMembers(schema: JsonSchema): string {
  const required = new Set(schema.required ?? []);
  const members = Object.entries(schema.properties ?? {})
    .map(([name, prop]) => [name, parsedSchema(prop)] as const)
    .map(([name, prop]) => `${doc([prop.description, defaultLine(prop)])}${key(name)}${required.has(name) ? '' : '?'}: ${tsType(prop)};`);
  const index = indexType(schema);
  if (index !== undefined) {
    // Named properties must fit the index signature: widen it to unknown when one does not.
    const fits = Object.values(schema.properties ?? {}).every((prop) => tsType(parsedSchema(prop)) === index);
    members.push(`[key: string]: ${fits ? index : 'unknown'};`);
  }
  return members.join('\n');
}

function objectType(schema: JsonSchema): string {
  if (!schema.properties || Object.keys(schema.properties).length === 0) return `Record<string, ${indexType(schema) ?? 'unknown'}>`;
  return `{\n${objectMembers(schema)}\n}`;
}

const isStringEnum = (schema: JsonSchema) => Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string');

function renderModels(doc_: OpenApiDocument): string {
  const usesUploadable = JSON.stringify(doc_.components.schemas).includes('"binary"');
  const out: string[] = [HEADER, '', ...(usesUploadable ? ["import type { Uploadable } from '../uploads';", ''] : [])];
  for (const [name, schema] of Object.entries(doc_.components.schemas)) {
    const comment = doc([schema.description]);
    const isObject = schema.type === 'object' && schema.properties && Object.keys(schema.properties).length > 0;
    if (isObject) out.push(`${comment}export interface ${name} {\n${objectMembers(schema)}\n}\n`);
    else out.push(`${comment}export type ${name} = ${tsType(schema)};\n`);
    if (isStringEnum(schema))
      out.push(
        `/** Every value of \`${name}\`, in the document's order (for pickers and checks). */\n` +
          `export const ${name}Values = [${schema.enum!.map(literal).join(', ')}] as const satisfies readonly ${name}[];\n`,
      );
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Resources

interface Emitted {
  classes: string[];
  models: Set<string>;
  paramTypes: string[];
}

const extendedByHand = (node: ResourceNode) => node.operations.some((op) => op.handWritten) || EXTENDED_BY_HAND.has(node.path.join('.'));
const generatedClassName = (node: ResourceNode) => (extendedByHand(node) ? `${className(node.path)}Base` : className(node.path));

/** Names of the component schemas a type expression mentions. */
function mentionedModels(type: string, schemas: Record<string, JsonSchema>): string[] {
  return (type.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).filter((word) => word in schemas);
}

/** A query flag spelled `"true"` / `"false"` on the wire (a string enum of exactly those two words). */
const isFlag = (schema: JsonSchema) => schema.enum?.length === 2 && schema.enum.includes('true') && schema.enum.includes('false');

/**
 * A query parameter's type. A flag is a `boolean` (sent as `true` / `false`, the words the service
 * reads), with its default as a boolean, as the Python client's `bool`.
 */
function queryParamType(schema: JsonSchema): { type: string; schema: JsonSchema } {
  if (!isFlag(schema)) return { type: tsType(schema), schema };
  const flag: JsonSchema = { ...schema, type: 'boolean' };
  delete flag.enum;
  if (schema.default !== undefined) flag.default = schema.default === 'true';
  return { type: 'boolean', schema: flag };
}

function queryParamsType(op: Operation): string {
  const members = op.queryParams.map((p) => {
    const { type, schema } = queryParamType(p.schema);
    return `${doc([p.description ?? p.schema.description, defaultLine(schema)])}${key(p.name)}${p.required ? '' : '?'}: ${type};`;
  });
  return `{\n${members.join('\n')}\n}`;
}

function renderMethod(node: ResourceNode, op: Operation, schemas: Record<string, JsonSchema>, out: Emitted): string {
  const args: string[] = op.pathParams.map((p) => `${camel(p.name)}: string`);
  const spec: string[] = [`method: '${op.httpMethod}'`];
  const pathExpr = op.pathParams.length
    ? `\`${op.path.replace(/\{([^}]+)\}/g, (_, name: string) => `\${encodeURIComponent(${camel(name)})}`)}\``
    : `'${op.path}'`;
  spec.push(`path: ${pathExpr}`);

  let paramsType: string | undefined;
  let paramsOptional = true;
  let prelude = '';
  const queryNames = op.queryParams.map((p) => p.name);
  if (op.queryParams.length > 0) {
    const name = `${className(node.path)}${pascal(op.method)}Params`;
    out.paramTypes.push(
      `${doc([`Parameters of \`${node.path.join('.')}.${op.method}\` (the query of ${op.httpMethod} ${op.path}).`])}export interface ${name} ${queryParamsType(op)}\n`,
    );
    for (const p of op.queryParams) mentionedModels(queryParamType(p.schema).type, schemas).forEach((m) => out.models.add(m));
    paramsType = name;
    paramsOptional = op.queryParams.every((p) => !p.required);
  }
  if (op.body) {
    const bodySchema = schemas[op.body.schema];
    out.models.add(op.body.schema);
    paramsType = paramsType ? `${op.body.schema} & ${paramsType}` : op.body.schema;
    paramsOptional = paramsOptional && (bodySchema?.required ?? []).length === 0;
    const bodyValue = op.body.kind === 'json' && op.body.required && paramsOptional ? 'params ?? {}' : 'params';
    if (queryNames.length > 0) {
      prelude = `const { ${queryNames.map((n) => (validIdentifier(n) ? n : `${literal(n)}: ${camel(n)}`)).join(', ')}, ...body } = params ?? {};\n`;
      spec.push(`query: { ${queryNames.map((n) => (validIdentifier(n) ? n : `${key(n)}: ${camel(n)}`)).join(', ')} }`);
    }
    const bodyExpr = queryNames.length > 0 ? 'body' : bodyValue;
    if (op.body.kind === 'json') spec.push(`body: ${bodyExpr}`);
    else {
      const files = Object.entries(bodySchema?.properties ?? {})
        .filter(([, prop]) => prop.format === 'binary')
        .map(([name]) => literal(name));
      spec.push(`multipart: ${bodyExpr}`, `fileFields: [${files.join(', ')}]`);
    }
  } else if (queryNames.length > 0) {
    spec.push('query: params');
  }
  if (paramsType) args.push(paramsOptional ? `params?: ${paramsType}` : `params: ${paramsType}`);
  args.push(`options?: ${op.body?.kind === 'multipart' ? 'UploadOptions' : 'RequestOptions'}`);
  if (!op.authenticated) spec.push('authenticated: false');
  if (READ_ONLY_POSTS.has(op.operationId)) spec.push('retryGatewayErrors: true');

  let returnType: string;
  let call: string;
  if (op.reply.kind === 'event-stream')
    throw new Error(`${op.operationId}: an event stream must be written by hand (handWritten in operations.ts)`);
  if (op.reply.kind === 'raw') {
    spec.push('raw: true');
    returnType = 'APIPromise<Record<string, unknown>>';
    call = 'request';
  } else if (op.paginated) {
    const item = schemas[op.reply.schema]?.properties?.items?.items;
    const itemType = tsType(item);
    mentionedModels(itemType, schemas).forEach((m) => out.models.add(m));
    returnType = `PagePromise<${itemType}>`;
    call = 'requestPage';
  } else {
    out.models.add(op.reply.schema);
    returnType = `APIPromise<${op.reply.schema}>`;
    call = 'request';
  }
  const comment = doc([
    op.summary ? `${op.summary.replace(/\.$/, '')}.` : undefined,
    op.retried ? undefined : 'Not retried unless `options.maxRetries` says so: a failure status is the answer.',
    `\`${op.httpMethod} ${op.path}\``,
  ]);
  // An operation not retried by default: maxRetries 0 unless the caller's options give one.
  const optionsExpr = op.retried ? 'options' : '{ ...options, maxRetries: options?.maxRetries ?? 0 }';
  const callArgs = `{ ${spec.join(', ')} }, ${optionsExpr}`;
  return `${comment}${op.method}(${args.join(', ')}): ${returnType} {\n${prelude}return this._client.${call}(${callArgs});\n}\n`;
}

function renderNode(node: ResourceNode, schemas: Record<string, JsonSchema>, out: Emitted): void {
  for (const child of node.children.values()) renderNode(child, schemas, out);
  if (node.path.length === 0) return;
  for (const child of node.children.values())
    if (extendedByHand(child))
      throw new Error(`${child.path.join('.')}: a nested resource written by hand needs support in clients/codegen/typescript.ts`);
  const name = generatedClassName(node);
  const members: string[] = [];
  for (const child of node.children.values()) members.push(`readonly ${child.path.at(-1)}: ${className(child.path)};`);
  if (node.children.size > 0) {
    const assigns = [...node.children.values()].map((child) => `this.${child.path.at(-1)} = new ${className(child.path)}(client);`);
    members.push(`constructor(client: ComboCore) {\nsuper(client);\n${assigns.join('\n')}\n}\n`);
  }
  for (const op of node.operations) if (!op.handWritten) members.push(renderMethod(node, op, schemas, out));
  const where = `\`client.${node.path.join('.')}\``;
  const comment = extendedByHand(node)
    ? doc([`${where}: the generated methods; src/resources/${node.path.join('-')}.ts adds those written by hand.`])
    : doc([`${where}.`]);
  out.classes.push(`${comment}export class ${name} extends APIResource {\n${members.join('\n')}}\n`);
}

function renderResources(doc_: OpenApiDocument, surface: Operation[]): string {
  const schemas = doc_.components.schemas;
  const tree = resourceTree(surface);
  const out: Emitted = { classes: [], models: new Set(), paramTypes: [] };
  renderNode(tree, schemas, out);
  const top = [...tree.children.values()];
  const hand = top.filter(extendedByHand);

  const operations = surface.map(
    (op) =>
      `{ operationId: '${op.operationId}', resource: '${op.resource.join('.')}', method: '${op.method}', httpMethod: '${op.httpMethod}', path: '${op.path}', handWritten: ${op.handWritten} },`,
  );
  const handImports = hand.map((node) => `import type { ${className(node.path)} } from '../resources/${node.path.join('-')}';`);
  const usesUpload = surface.some((op) => !op.handWritten && op.body?.kind === 'multipart');
  const usesPage = surface.some((op) => !op.handWritten && op.paginated);
  const coreImports = [
    'APIResource',
    'ComboCore',
    'type APIPromise',
    'type ClientOptions',
    'type HttpMethod',
    ...(usesPage ? ['type PagePromise'] : []),
    'type RequestOptions',
    ...(usesUpload ? ['type UploadOptions'] : []),
  ];
  const models = [...out.models].sort();

  const fields = top.map((node) => `${doc([`\`client.${node.path.join('.')}\``])}readonly ${node.path.at(-1)}: ${className(node.path)};`);
  const assigns = top.map((node) =>
    extendedByHand(node)
      ? `this.${node.path.at(-1)} = new hand.${className(node.path)}(this);`
      : `this.${node.path.at(-1)} = new ${className(node.path)}(this);`,
  );

  return [
    HEADER,
    '',
    `import { ${coreImports.join(', ')} } from '../core';`,
    ...handImports,
    `import type { ${models.join(', ')} } from './models';`,
    '',
    doc(['An operation of the OpenAPI document and its place in the client (`client.<resource>.<method>`).']) +
      'export interface OperationInfo {\noperationId: string;\nresource: string;\nmethod: string;\nhttpMethod: HttpMethod;\npath: string;\n/** Written by hand on top of the generated class (src/resources/). */\nhandWritten: boolean;\n}\n',
    doc(['Every operation of the document, in document order (clients/codegen/operations.ts places them).']) +
      `export const OPERATIONS: readonly OperationInfo[] = [\n${operations.join('\n')}\n];\n`,
    ...out.paramTypes,
    ...out.classes,
    doc(['The classes written by hand on top of the generated ones (src/resources/).']) +
      `export interface HandWrittenResources {\n${hand.map((node) => `${className(node.path)}: new (client: ComboCore) => ${className(node.path)};`).join('\n')}\n}\n`,
    doc(['The client with its resources; `Combo` (src/client.ts) passes it the classes written by hand.']) +
      `export class ComboBase extends ComboCore {\n${fields.join('\n')}\n\nconstructor(options: ClientOptions, hand: HandWrittenResources) {\nsuper(options);\n${assigns.join('\n')}\n}\n}\n`,
  ].join('\n');
}

/** The TypeScript client's generated files (path relative to clients/ → content). */
export async function renderTypeScript(doc_: OpenApiDocument, surface: Operation[]): Promise<Map<string, string>> {
  const files = new Map([
    [MODELS, renderModels(doc_)],
    [RESOURCES, renderResources(doc_, surface)],
  ]);
  const root = dirname(CLIENTS_DIR);
  const formatted = new Map<string, string>();
  for (const [file, code] of files) {
    const filepath = join(CLIENTS_DIR, file);
    const config = (await resolveConfig(filepath, { config: join(root, '.prettierrc.json') })) ?? {};
    formatted.set(file, await format(code, { ...config, filepath, parser: 'typescript' }));
  }
  return formatted;
}
