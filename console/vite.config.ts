// The web console's build: Preact with the automatic JSX runtime (no babel, no preset), one entry, no
// inline script (the gateway's CSP allows none), no module-preload polyfill (it would be code the console
// does not need), no source maps. `npm run build` runs it after tsdown (scripts/build-console.mjs), into
// dist/console, which the gateway serves at /console/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    // Every asset is a file: a `data:` URL in the CSS would be allowed, but the console keeps data: for
    // results it renders.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
