/**
 * The service's layer table, written here once. dependency-cruiser.cjs builds its layer rules from
 * it (`npm run deps:check`); docs/layers.md shows it, written by `npm run layers:doc`
 * (layers-doc.cjs), and test/unit/layer-table.test.ts fails when the two differ.
 *
 * A layer is one or more folders at the repository root. Its row says which layers its files may
 * import (imports of npm packages and Node.js modules are free unless `npmOnly`), which of them
 * only type-only (`import type { X }`, `import { type X }` with every specifier a type,
 * `export type`: erased at run time), and which files are exempt. `anything`: no rule.
 *
 * @typedef {object} Layer
 * @property {string} id the name other rows use
 * @property {string[]} folders repository paths of its files
 * @property {string} what what its files are
 * @property {string[] | 'anything'} mayImport the layers its files may import (itself included)
 * @property {string[]} [typeOnly] of those, the layers it imports type-only
 * @property {string[]} [valuesFrom] files of a type-only layer whose values it may import nonetheless
 * @property {{ folder: string, as: string }[]} [alsoFolders] folders outside the table it may import
 * @property {boolean} [npmOnly] besides its layers, npm packages only: no Node.js module
 * @property {{ file: string, why: string }[]} [exempt] files of the layer its rule leaves out
 */

/**
 * Domain files that workflows may import as values: deterministic, without I/O, clocks or
 * randomness, and importing nothing but such files and common/.
 */
const WORKFLOW_PURE_DOMAIN = ['completion/run-input.ts', 'completion/context-messages.ts', 'completion/tool-arguments.ts'];

/** @type {Layer[]} */
const layers = [
  {
    id: 'api',
    folders: ['api'],
    what: 'HTTP edge: validates, authorizes, calls one command, presents the result',
    mayImport: ['api', 'commands', 'stores', 'domain', 'common'],
  },
  {
    id: 'workers',
    folders: ['workers'],
    what: "the worker process's composition root",
    mayImport: ['api', 'workers', 'commands', 'workflows', 'activities', 'domain', 'upstream', 'stores', 'common'],
  },
  {
    id: 'commands',
    folders: ['commands'],
    what: 'use cases: every Temporal client call and every operation of more than one step',
    mayImport: ['commands', 'workflows', 'stores', 'domain', 'upstream', 'common'],
  },
  {
    id: 'workflows',
    folders: ['workflows'],
    what: 'deterministic workflow code',
    mayImport: ['workflows', 'activities', 'domain', 'common'],
    typeOnly: ['activities', 'domain'],
    valuesFrom: WORKFLOW_PURE_DOMAIN,
  },
  {
    id: 'activities',
    folders: ['activities'],
    what: "activities, given the process's stores and upstream clients",
    mayImport: ['activities', 'stores', 'domain', 'upstream', 'common'],
  },
  {
    id: 'domain',
    folders: ['completion', 'knowledge', 'triggers'],
    what: 'domain: run planning and input, review, import; extraction, parsing, search; channels, matching, session templates',
    mayImport: ['domain', 'stores', 'upstream', 'common'],
    typeOnly: ['stores'],
  },
  {
    id: 'upstream',
    folders: ['upstream'],
    what: 'clients of upstream services (chat model, embeddings, rerank, HTTP tools)',
    mayImport: ['upstream', 'common'],
  },
  {
    id: 'stores',
    folders: ['stores'],
    what: 'data access, one module per collection or index',
    mayImport: ['stores', 'common'],
  },
  {
    id: 'common',
    folders: ['common'],
    what: 'shared code: config, errors, schemas, ids, events',
    mayImport: ['common'],
  },
  {
    id: 'console',
    folders: ['console'],
    what: 'the operator console, a browser app talking to the API through the official client',
    mayImport: ['console'],
    alsoFolders: [{ folder: 'clients/typescript/src', as: 'the official TypeScript client, as `@combo/client`' }],
    npmOnly: true,
    exempt: [{ file: 'console/vite.config.mjs', why: 'the Vite config runs in Node' }],
  },
  {
    id: 'codegen',
    folders: ['clients/codegen'],
    what: 'the generator of the official clients (development tool)',
    mayImport: ['codegen'],
  },
  {
    id: 'tests',
    folders: ['test', 'bench'],
    what: 'tests and benchmarks',
    mayImport: 'anything',
  },
];

/**
 * Packages that only some layers may import. A composition root that creates a client and hands it
 * down counts as its layer's exception.
 * @type {{ name: string, layers: string[], files: string[], why: string }[]}
 */
const packageOwners = [
  {
    name: '@temporalio/client',
    layers: ['commands', 'workers', 'tests'],
    files: ['api/services-factory.ts'],
    why: "the use cases start, signal, query and schedule workflows; the API's composition root creates the client and hands it to them",
  },
];

const byId = new Map(layers.map((layer) => [layer.id, layer]));
for (const layer of layers) {
  const named = [...(Array.isArray(layer.mayImport) ? layer.mayImport : []), ...(layer.typeOnly ?? [])];
  for (const id of named) if (!byId.has(id)) throw new Error(`layers.cjs: row ${layer.id} names an unknown layer ${id}`);
  for (const file of layer.valuesFrom ?? []) {
    const of = (layer.typeOnly ?? []).some((id) => byId.get(id).folders.some((folder) => file.startsWith(`${folder}/`)));
    if (!of) throw new Error(`layers.cjs: row ${layer.id} takes values from ${file}, which is in none of its type-only layers`);
  }
  for (const id of layer.typeOnly ?? []) {
    if (!layer.mayImport.includes(id)) throw new Error(`layers.cjs: row ${layer.id} imports ${id} type-only but may not import it`);
  }
}
for (const owner of packageOwners) {
  for (const id of owner.layers) if (!byId.has(id)) throw new Error(`layers.cjs: ${owner.name} names an unknown layer ${id}`);
}

module.exports = { layers, packageOwners, WORKFLOW_PURE_DOMAIN };
