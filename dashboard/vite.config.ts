import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard's build: `npx vite build --config dashboard/vite.config.ts [--outDir <dir> --emptyOutDir]`.
 * Served under /dashboard/ on both runtimes (hash routing, so no rewrite rules). The output has no
 * inline script or style, so it runs under the strict CSP of `functions/shared/dashboard-headers.ts`.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  // Preact's automatic JSX runtime (no preset plugin needed).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No module-preload polyfill: every supported browser has it, and it would be code for nothing.
    modulePreload: { polyfill: false },
    // Small assets stay files, never data: URLs inlined into CSS or JS.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
