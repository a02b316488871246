/**
 * docs/layers.md, rendered from the layer table (layers.cjs). `npm run layers:doc` writes it;
 * test/unit/layer-table.test.ts fails when the file and the table differ.
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { layers, packageOwners } = require('./layers.cjs');

const DOC_PATH = join(__dirname, '..', '..', 'docs', 'layers.md');

const code = (text) => `\`${text}\``;
const list = (items) => (items.length <= 2 ? items.join(' and ') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** A row's "may import" cell: its layers (type-only ones marked), other folders, packages, exempt files. */
function mayImportCell(layer) {
  if (layer.mayImport === 'anything') return 'anything';
  const parts = layer.mayImport.map((id) => {
    if (!(layer.typeOnly ?? []).includes(id)) return id;
    const folders = layers.find((other) => other.id === id).folders;
    const values = (layer.valuesFrom ?? []).filter((file) => folders.some((folder) => file.startsWith(`${folder}/`)));
    return values.length > 0 ? `${id} (type-only, but values of ${list(values.map(code))})` : `${id} (type-only)`;
  });
  for (const { folder, as } of layer.alsoFolders ?? []) parts.push(`${code(`${folder}/`)} (${as})`);
  let cell = parts.join(', ');
  if (layer.npmOnly) cell += '; npm packages, no Node.js module';
  for (const { file, why } of layer.exempt ?? []) cell += `; not for ${code(file)} (${why})`;
  return cell;
}

function renderLayersDoc() {
  const rows = layers.map((layer) =>
    [layer.id, layer.folders.map((folder) => code(`${folder}/`)).join(', '), layer.what, mayImportCell(layer)].join(' | '),
  );
  const owners = packageOwners.map(
    (owner) => `- ${code(owner.name)}: ${list([...owner.layers, ...owner.files.map(code)])} only; ${owner.why}.`,
  );
  return [
    '# Layers',
    '',
    '<!-- Written by `npm run layers:doc` from test/static/layers.cjs; test/unit/layer-table.test.ts fails when they differ. -->',
    '',
    "Every folder of the service's source belongs to one layer, and a layer's files import only the layers",
    'its row names (npm packages and Node.js modules aside). `npm run check` enforces the table: the rules',
    'of `test/static/dependency-cruiser.cjs` are built from `test/static/layers.cjs`, where the table is',
    'written; a change goes there, then `npm run layers:doc` rewrites this page.',
    '',
    '| layer | folders | what | may import |',
    '|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
    '',
    'A type-only import names types only (`import type { X }`, `import { type X }` with every specifier',
    'a type, `export type`) and is erased at run time. The files of a type-only layer whose values a row',
    'names are deterministic (no I/O, clocks or randomness) and import as values only each other, what that',
    "row may import as values and npm packages: no Node.js module (Temporal's workflow bundle refuses them).",
    '',
    'Packages that only some layers import:',
    '',
    ...owners,
    '',
    'Beyond the table: no import cycle, type-only imports included. The workflows import the activities',
    "type-only (Temporal's `proxyActivities`), and no layer the activities may import may import",
    '`workflows/`, so that import closes no cycle. Production code (all but `test/`, `bench/`,',
    '`clients/codegen/`, `console/` and root config files) imports no devDependency, and every import resolves.',
    '',
  ].join('\n');
}

if (require.main === module) {
  writeFileSync(DOC_PATH, renderLayersDoc());
  process.stdout.write(`${DOC_PATH} written\n`);
}

module.exports = { renderLayersDoc, DOC_PATH };
