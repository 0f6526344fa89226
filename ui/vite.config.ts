/**
 * The console's build: ui/ → ui/dist, served by plugins/console at `/`.
 * Asset names carry a content hash (cached for a year by the console); the
 * dev server proxies the API to a running Portcullis (PORTCULLIS_URL).
 */
import react from '@vitejs/plugin-react'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const target = process.env.PORTCULLIS_URL ?? 'http://127.0.0.1:8000'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No source maps in the served build: smaller, and nothing to configure for the CSP.
    sourcemap: false,
    reportCompressedSize: false,
    // One chunk for the first screen; its budget (500 kB gzipped) is checked by bench/ui-bundle.ts, not this raw-size warning.
    chunkSizeWarningLimit: 1000,
  },
  server: { proxy: { '/api': target, '/ready': target } },
})
