/**
 * The console's build: ui/ → ui/dist, served by plugins/console at `/`.
 * Asset names carry a content hash (cached for a year by the console); the
 * dev server proxies the API to a running Portcullis (PORTCULLIS_URL).
 */
import react from '@vitejs/plugin-react'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { defineConfig, type Plugin } from 'vite'

/**
 * A gzip copy beside each script and stylesheet (`x.js.gz`), made once at
 * build: the server sends it to a browser that accepts gzip (kernel/http/web.ts),
 * a quarter of the bytes, without compressing on every request.
 */
function precompress(): Plugin {
  let outDir = ''
  return {
    name: 'portcullis-precompress',
    apply: 'build',
    configResolved(c) {
      outDir = path.resolve(c.root, c.build.outDir)
    },
    closeBundle() {
      const dir = path.join(outDir, 'assets')
      for (const f of readdirSync(dir)) {
        if (/\.(js|css|svg)$/.test(f)) writeFileSync(path.join(dir, f + '.gz'), gzipSync(readFileSync(path.join(dir, f)), { level: 9 }))
      }
    },
  }
}

const target = process.env.PORTCULLIS_URL ?? 'http://127.0.0.1:8080'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), precompress()],
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
