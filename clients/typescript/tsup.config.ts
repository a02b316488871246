import { defineConfig } from 'tsup';

// One bundle per module system: dist/index.js (ESM) and dist/index.cjs (CommonJS), each with its
// type declarations (index.d.ts, index.d.cts). eventsource-parser stays a dependency (not bundled).
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  target: 'es2022',
  platform: 'neutral',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: false,
  treeshake: true,
});
