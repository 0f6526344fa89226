import { defineConfig } from 'tsup'

// Transpile file by file (no bundling): plugins and migrations are found on
// disk at run time, so dist/ mirrors the source tree.
export default defineConfig({
  entry: ['kernel/**/*.ts', 'sdk/**/*.ts', 'plugins/**/*.ts', 'migrations/**/*.ts', 'examples/**/*.ts', '!**/test/**', '!**/*.test.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  bundle: false,
  splitting: false,
  sourcemap: true,
  clean: true,
  dts: false,
  outDir: 'dist',
})
