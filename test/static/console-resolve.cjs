/**
 * Module resolution for dependency-cruiser beyond tsconfig.json (read as a webpack config's
 * `resolve`): the operator console imports the official TypeScript client as `@combo/client`,
 * from its source, as console/tsconfig.json and console/vite.config.mjs say.
 */
const path = require('node:path');

module.exports = {
  resolve: {
    alias: { '@combo/client': path.join(__dirname, '..', '..', 'clients', 'typescript', 'src', 'index.ts') },
  },
};
