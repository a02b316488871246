// Builds the operator console (console/src) into dist/console, served by the API at /console.
// `npm run build` runs it after type-checking (tsc -p console/tsconfig.json); `npm run console:dev`
// serves it with hot reload, sending /v1 to the API of `npm start` (or CONSOLE_API_URL).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/console/',
  plugins: [react()],
  resolve: {
    // The official client from its source, not a copy (console/tsconfig.json names the same file).
    alias: { '@combo/client': here('../clients/typescript/src/index.ts') },
  },
  build: {
    // CONSOLE_OUT_DIR: the production tree's dist (stack/prod-build.sh); else the checkout's dist/console.
    outDir: process.env.CONSOLE_OUT_DIR ?? here('../dist/console'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline scripts or data: URLs for assets: the Content-Security-Policy allows 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: true,
  },
  server: {
    port: 5173,
    proxy: { '/v1': process.env.CONSOLE_API_URL ?? 'http://127.0.0.1:9380' },
  },
});
