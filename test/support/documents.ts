import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestApi } from './api';
import { eventually } from './consumer';

/** Uploads the GPL-3 text fixture (about 35 KB) to a knowledge base with the `naive` parser; returns its doc_id. */
export async function uploadLicence(api: TestApi, kbId: string): Promise<string> {
  const bytes = readFileSync(join(__dirname, '..', 'fixtures', 'texts', 'GPL-3'));
  const up = await api.upload('/v1/document', api.adminKey, { kb_id: kbId, parser_id: 'naive' }, { name: 'GPL-3.txt', bytes });
  return up.json.data.doc_id;
}

/** The document once it is no longer `parsing` (read through the API). */
export function settledDocument(api: TestApi, docId: string, timeoutMs = 60_000) {
  return eventually(async () => {
    const d = (await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data;
    return d.status === 'parsing' ? undefined : d;
  }, timeoutMs);
}
