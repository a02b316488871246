/**
 * dependency-cruiser: the layer rules, built from the layer table in layers.cjs (docs/layers.md
 * shows it), and the rules beyond it: no import cycle, no devDependency in production code, no
 * import that does not resolve. Run with `npm run deps:check` (part of `npm run check`).
 * tsPreCompilationDeps: true makes type-only imports visible and tells them apart.
 */
const { layers, packageOwners } = require('./layers.cjs');

const byId = new Map(layers.map((layer) => [layer.id, layer]));
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A regex of the paths under any of `folders`. */
const under = (folders) => `^(${folders.map(escapeRegex).join('|')})/`;
/** A regex of exactly `files`. */
const exactly = (files) => `^(${files.map(escapeRegex).join('|')})$`;
const foldersOf = (ids) => ids.flatMap((id) => byId.get(id).folders);
/**
 * A path in a folder at the repository root: a file of the project, unless a Node.js module (`fs/promises`)
 * or a package (in node_modules/, or ../ when node_modules is a link). Any folder, so that one missing
 * from the table is no way around it.
 */
const IN_A_FOLDER = '^[^./][^/]*/';
const TABLE_FOLDERS = layers.flatMap((layer) => [...layer.folders, ...(layer.alsoFolders ?? []).map(({ folder }) => folder)]);
const ruled = layers.filter((layer) => layer.mayImport !== 'anything');

/**
 * Each row's rules: what its files may import; one rule per layer it imports type-only; and what the
 * files whose values it takes from those may import as values (they end up in the workflow bundle).
 */
const layerRules = ruled.flatMap((layer) => {
  const from = { path: under(layer.folders), ...(layer.exempt ? { pathNot: exactly(layer.exempt.map(({ file }) => file)) } : {}) };
  const also = (layer.alsoFolders ?? []).map(({ folder }) => folder);
  const allowed = [...foldersOf(layer.mayImport), ...also];
  const row = `Layer table (test/static/layers.cjs), row ${layer.id}`;
  return [
    {
      name: `layer-${layer.id}`,
      comment: `${row}: may import ${[...layer.mayImport, ...also].join(', ')}${layer.npmOnly ? ' and npm packages' : ''} only.`,
      severity: 'error',
      from,
      to: layer.npmOnly
        ? { pathNot: under(allowed), dependencyTypesNot: ['npm', 'npm-dev'] }
        : { path: IN_A_FOLDER, pathNot: under([...allowed, 'node_modules']), dependencyTypesNot: ['core'] },
    },
    ...(layer.typeOnly ?? []).map((id) => {
      const values = (layer.valuesFrom ?? []).filter((file) => byId.get(id).folders.some((folder) => file.startsWith(`${folder}/`)));
      return {
        name: `layer-${layer.id}-${id}-type-only`,
        comment: `${row}: imports of ${id} are type-only${values.length > 0 ? `, but for ${values.join(', ')}` : ''}.`,
        severity: 'error',
        from,
        to: {
          path: under(byId.get(id).folders),
          ...(values.length > 0 ? { pathNot: exactly(values) } : {}),
          dependencyTypesNot: ['type-only'],
        },
      };
    }),
    ...(layer.valuesFrom
      ? [
          {
            name: `layer-${layer.id}-values-pure`,
            comment: `${row}: the files whose values it imports (${layer.valuesFrom.join(', ')}) import as values only each other, what it may import as values and npm packages: no Node.js module.`,
            severity: 'error',
            from: { path: exactly(layer.valuesFrom) },
            to: {
              pathNot: `${exactly(layer.valuesFrom)}|${under(foldersOf(layer.mayImport.filter((id) => !(layer.typeOnly ?? []).includes(id))))}`,
              dependencyTypesNot: ['type-only', 'npm', 'npm-dev'],
            },
          },
        ]
      : []),
  ];
});

/** Packages only some layers import: from every other row's folders (tests and benchmarks too, unless named). */
const packageRules = packageOwners.map((owner) => ({
  name: `package-owners-${owner.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-/, '')}`,
  comment: `Layer table (test/static/layers.cjs): only ${[...owner.layers, ...owner.files].join(', ')} import ${owner.name}.`,
  severity: 'error',
  from: {
    path: under(foldersOf(layers.filter((layer) => !owner.layers.includes(layer.id)).map((layer) => layer.id))),
    pathNot: exactly(owner.files),
  },
  to: { path: `(^|/)node_modules/${escapeRegex(owner.name)}/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    ...packageRules,
    {
      name: 'not-in-table',
      comment: 'Layer table (test/static/layers.cjs): every folder of source is in the table, so each has its rule.',
      severity: 'error',
      from: { path: IN_A_FOLDER, pathNot: under([...TABLE_FOLDERS, 'node_modules']) },
      to: {},
    },
    {
      name: 'no-circular',
      comment:
        "Beyond the table: no import cycle, type-only imports included. The workflows' `import type` of the activities (Temporal's proxyActivities) needs no exception: no layer the activities may import may import workflows/ (test/unit/layer-table.test.ts), so that edge closes no cycle.",
      severity: 'error',
      from: {},
      to: { circular: true },
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
