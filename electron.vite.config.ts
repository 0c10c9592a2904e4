import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const alias = { '@shared': here('./src-shared') };

/**
 * Builds three things into out/: main/ (the Electron main process, the Node CLI and the
 * programmatic API `fleetscope/api`, which share chunks), preload/ (sandboxed, so one self-contained CommonJS file) and renderer/.
 */
export default defineConfig({
  main: {
    resolve: { alias },
    build: {
      outDir: here('./out/main'),
      rolldownOptions: {
        input: {
          index: here('./src-main/electron/main.ts'),
          cli: here('./src-main/cli/index.ts'),
          api: here('./src-main/api/index.ts'),
        },
        checks: { bundlerTimings: false },
      },
    },
  },
  preload: {
    resolve: { alias },
    build: {
      outDir: here('./out/preload'),
      externalizeDeps: false,
      isolatedEntries: true,
      rolldownOptions: {
        input: { index: here('./src-main/electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: here('./src-renderer'),
    resolve: { alias },
    plugins: [vue()],
    build: {
      outDir: here('./out/renderer'),
      emptyOutDir: true,
      // electron-vite leaves the renderer unminified; the browser surface loads it over the network
      // and the first route's JavaScript has a budget (test/e2e/bundle-size.test.ts). The heavy
      // views are split off with dynamic import() in src-renderer/lazy-views.ts.
      minify: true,
      rolldownOptions: {
        input: { index: here('./src-renderer/index.html') },
        // Libraries every page needs get chunks named after them (instead of after whichever
        // module happened to come first), so the first route's files say what they hold.
        output: {
          codeSplitting: {
            groups: [
              { name: 'vue', test: /node_modules[\\/](vue|@vue[\\/]|pinia)/ },
              { name: 'zod', test: /node_modules[\\/]zod[\\/]/ },
            ],
          },
        },
        // Timing warnings are noise on a loaded 2-core machine; `npm run bench` measures speed.
        checks: { bundlerTimings: false },
      },
    },
  },
});
