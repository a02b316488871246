/**
 * dependency-cruiser: the service's layers. This comment is the layer table; each rule's `comment`
 * names the row it enforces. Run with `npm run deps:check` (exits non-zero on any violation).
 *
 * Folders are at the repo root. "domain" = completion/, knowledge/, triggers/. "upstream" = upstream/
 * (clients of upstream HTTP services).
 * commands/ and upstream/ may not exist yet: the rules hold for them once they do.
 *
 * | folder                      | may import (project folders)                                                  |
 * |-----------------------------|-------------------------------------------------------------------------------|
 * | api/ (HTTP edge)            | api/, commands/, stores/, domain, common/                                     |
 * | workers/ (composition root) | anything in the project (addition: but not test/ or bench/)                   |
 * | commands/ (use cases)       | commands/, workflows/, stores/, domain, upstream, common/                     |
 * | workflows/                  | workflows/, activities/ TYPE-ONLY, domain TYPE-ONLY except the pure modules   |
 * |                             | (value imports allowed from completion/run-input.ts and                       |
 * |                             | completion/context-messages.ts), common/                                      |
 * | activities/                 | activities/, stores/, domain, upstream, common/, commands/                    |
 * | domain                      | domain, stores/ TYPE-ONLY, upstream, common/                                  |
 * | upstream (upstream/) | upstream, common/                                                      |
 * | stores/                     | stores/, common/                                                              |
 * | common/                     | common/ only                                                                  |
 * | bench/, test/               | anything                                                                      |
 * | console/ (operator console) | console/, the official TypeScript client (clients/typescript/src, imported as |
 * |                             | @combo/client) and npm packages: never the service's code or Node.js modules  |
 *
 * Besides the table: only commands/ (and the composition roots that create it) imports @temporalio/client; no cycles of value imports (cycles through an `import type` are allowed), no
 * devDependencies imported from production code (everything but test/, bench/ and root config
 * files), and no import that does not resolve.
 *
 * "TYPE-ONLY" means `import type { X }` / `import { type X }` (every specifier a type) / `export type`;
 * tsPreCompilationDeps: true makes these visible and tells them apart.
 */

/** Every project folder that holds source; a dependency into one of these is a project import. */
const PROJECT =
  '^(api|workers|commands|workflows|activities|completion|knowledge|triggers|upstream|llm|tools|stores|common|test|bench|console)/';
const DOMAIN = '(completion|knowledge|triggers)';
const UPSTREAM = '(upstream|llm|tools)';
/** Domain modules that workflows may import as values (deterministic, no I/O). */
const WORKFLOW_PURE_DOMAIN = ['^completion/run-input\\.ts$', '^completion/context-messages\\.ts$', '^completion/tool-arguments\\.ts$'];

/** A layer rule: from `from`, any project import outside `allowed` (a list of folder regexes) is an error. */
const layer = (name, row, from, allowed) => ({
  name,
  comment: `Layer table row "${row}": may import ${allowed.join(', ')} only.`,
  severity: 'error',
  from: { path: from },
  to: { path: PROJECT, pathNot: `^(${allowed.join('|')})/` },
});

/** A type-only rule: from `from`, a value import of `to` (other than `except`) is an error. */
const typeOnly = (name, row, from, to, except = []) => ({
  name,
  comment: `Layer table row "${row}": imports of ${to} must be type-only (import type).`,
  severity: 'error',
  from: { path: from },
  to: { path: to, ...(except.length > 0 ? { pathNot: except } : {}), dependencyTypesNot: ['type-only'] },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    layer('layer-api', 'api/ (HTTP edge)', '^api/', ['api', 'commands', 'stores', DOMAIN, 'common']),
    layer('layer-commands', 'commands/ (use cases)', '^commands/', ['commands', 'workflows', 'stores', DOMAIN, UPSTREAM, 'common']),
    layer('layer-workflows', 'workflows/', '^workflows/', ['workflows', 'activities', DOMAIN, 'common']),
    typeOnly('workflows-activities-type-only', 'workflows/', '^workflows/', '^activities/'),
    typeOnly('workflows-domain-type-only', 'workflows/', '^workflows/', `^${DOMAIN}/`, WORKFLOW_PURE_DOMAIN),
    layer('layer-activities', 'activities/', '^activities/', ['activities', 'stores', DOMAIN, UPSTREAM, 'common', 'commands']),
    layer('layer-domain', 'domain (completion/, knowledge/, triggers/)', `^${DOMAIN}/`, [DOMAIN, 'stores', UPSTREAM, 'common']),
    typeOnly('domain-stores-type-only', 'domain (completion/, knowledge/, triggers/)', `^${DOMAIN}/`, '^stores/'),
    layer('layer-upstream', 'upstream (upstream/)', `^${UPSTREAM}/`, [UPSTREAM, 'common']),
    layer('layer-stores', 'stores/', '^stores/', ['stores', 'common']),
    layer('layer-common', 'common/', '^common/', ['common']),
    layer('layer-workers', 'workers/ (composition root): anything in the project but tests and benchmarks', '^workers/', [
      'api',
      'workers',
      'commands',
      'workflows',
      'activities',
      DOMAIN,
      UPSTREAM,
      'stores',
      'common',
    ]),
    {
      name: 'layer-console',
      comment:
        'Layer table row "console/ (operator console)": a browser app that talks to the API only through the official TypeScript client; it imports its own files, the client (clients/typescript/src, by the @combo/client alias) and npm packages (bundled by Vite), never the service\'s code or a Node.js module. Its Vite config (Node) aside.',
      severity: 'error',
      from: { path: '^console/', pathNot: '^console/vite\\.config\\.mjs$' },
      to: { pathNot: '^(console|clients/typescript/src)/', dependencyTypesNot: ['npm', 'npm-dev'] },
    },
    {
      name: 'temporal-client-in-commands',
      comment:
        'Beyond the table: only commands/ calls the Temporal client (starts, signals, schedules, descriptions); the composition roots (api/services-factory.ts, workers/) create it and hand it down.',
      severity: 'error',
      from: {
        path: '^(api|activities|workflows|completion|knowledge|triggers|upstream|stores|common)/',
        pathNot: '^api/services-factory\\.ts$',
      },
      to: { path: '@temporalio/client' },
    },
    {
      name: 'no-circular',
      comment: 'Beyond the table: no cycle made of value imports (a cycle through an `import type` is erased at run time and allowed).',
      severity: 'error',
      from: {},
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'not-to-dev-dep',
      comment:
        'Beyond the table: production code (everything but test/, bench/, the client generator clients/codegen/, the operator console console/ (bundled at build time: its packages are not installed in the image) and root config files) imports no devDependency: the image installs without them.',
      severity: 'error',
      from: { path: '^[^/]+/', pathNot: '^(test|bench|clients/codegen|console|node_modules)/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Beyond the table: every import resolves (to a project file, a package or a Node.js core module).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not excluded (that would hide every package import); it is not followed.
    // The official clients are packages of their own (clients/python, clients/typescript).
    exclude: { path: '^(dist|\\.stack|coverage|test/fixtures|clients/(python|typescript))/' },
    moduleSystems: ['cjs', 'es6'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The console's @combo/client alias (console/tsconfig.json has it; the root tsconfig.json does not).
    webpackConfig: { fileName: 'test/static/console-resolve.cjs' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.cjs', '.mjs', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
