import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface Layer {
  id: string;
  mayImport: string[] | 'anything';
}

// The table, its renderer and the dependency-cruiser config are plain CommonJS (dependency-cruiser loads them without TypeScript).
const load = createRequire(__filename);
const { layers } = load('../static/layers.cjs') as { layers: Layer[] };
const { renderLayersDoc, DOC_PATH } = load('../static/layers-doc.cjs') as { renderLayersDoc: () => string; DOC_PATH: string };
const { forbidden } = load('../static/dependency-cruiser.cjs') as { forbidden: { name: string }[] };

describe('the layer table (test/static/layers.cjs)', () => {
  it('is what docs/layers.md shows (`npm run layers:doc` writes it)', () => {
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(renderLayersDoc());
  });

  it('is what dependency-cruiser enforces: one layer rule per row that has a rule', () => {
    const ruled = layers.filter((layer) => layer.mayImport !== 'anything').map((layer) => `layer-${layer.id}`);
    expect(forbidden.map((rule) => rule.name).filter((name) => ruled.includes(name))).toEqual(ruled);
  });

  it("lets nothing the activities reach import workflows/, so the workflows' type import of them closes no cycle", () => {
    const byId = new Map(layers.map((layer) => [layer.id, layer]));
    const reached = new Set<string>();
    const visit = (id: string) => {
      if (reached.has(id)) return;
      reached.add(id);
      const { mayImport } = byId.get(id)!;
      if (mayImport === 'anything') throw new Error(`the activities reach ${id}, which may import anything`);
      mayImport.forEach(visit);
    };
    visit('activities');
    expect([...reached]).not.toContain('workflows');
    expect([...reached]).toEqual(expect.arrayContaining(['activities', 'stores', 'domain', 'upstream', 'common']));
  });
});
