/**
 * Generates the official clients' models and resource methods from the service's OpenAPI document
 * (clients/openapi.json, a copy of GET /v1/openapi.json that a test keeps equal to the served one).
 *
 *   node dist/clients/codegen/generate.js            writes the generated files
 *   node dist/clients/codegen/generate.js --check    exits 1 naming every file that differs
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildSurface, type OpenApiDocument } from './surface';
import { renderPython } from './python';
import { renderTypeScript } from './typescript';

export const CLIENTS_DIR = resolve(__dirname, '..').replace(/\/dist\/clients$/, '/clients');

/** Every generated file of both clients, path relative to clients/ → content. */
export async function renderClients(doc: OpenApiDocument): Promise<Map<string, string>> {
  const surface = buildSurface(doc);
  return new Map([...renderPython(doc, surface), ...(await renderTypeScript(doc, surface))]);
}

/** The generated files whose content on disk differs from what the document gives. */
export async function staleFiles(doc: OpenApiDocument, dir = CLIENTS_DIR): Promise<string[]> {
  return [...(await renderClients(doc))]
    .filter(([file, content]) => !existsSync(join(dir, file)) || readFileSync(join(dir, file), 'utf8') !== content)
    .map(([file]) => file);
}

async function main(): Promise<void> {
  const doc = JSON.parse(readFileSync(join(CLIENTS_DIR, 'openapi.json'), 'utf8')) as OpenApiDocument;
  if (process.argv.includes('--check')) {
    const stale = await staleFiles(doc);
    if (stale.length > 0) {
      console.error(`generated client files differ from clients/openapi.json: ${stale.join(', ')}\nrun: npm run clients:generate`);
      process.exit(1);
    }
    return;
  }
  for (const [file, content] of await renderClients(doc)) {
    mkdirSync(dirname(join(CLIENTS_DIR, file)), { recursive: true });
    writeFileSync(join(CLIENTS_DIR, file), content);
  }
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
