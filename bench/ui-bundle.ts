/**
 * The console's first screen, in bytes over the wire: what ui/dist/index.html
 * makes the browser load before it can draw the sign-in (the entry script, the
 * modules it preloads, the stylesheets), each compressed with gzip -9 and
 * brotli as a server or proxy would. The console is built first when it is
 * missing or older than its sources (ui/scripts/ensure-built.ts).
 *
 * Bounds: the target, 500 kB gzipped (issue 17); and the floor no React app
 * goes under, react + react-dom alone, bundled and minified by esbuild from
 * the same installed packages, gzipped the same way.
 *
 * Run alone: node --import tsx bench/ui-bundle.ts
 */
import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { uiIsStale } from '../ui/scripts/ensure-built.js'
import { machine, repoRoot, runAsMain } from './lib.js'

const TARGET = 500 * 1000

export interface UiBundleResult {
  files: { file: string; raw: number; gzip: number; brotli: number }[]
  total: { raw: number; gzip: number; brotli: number }
  reactFloorGzip: number
  targetGzip: number
}

const gz = (b: Buffer | Uint8Array) => gzipSync(b, { level: 9 }).length
const br = (b: Buffer | Uint8Array) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length
const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`

/** React and react-dom alone, as small as a bundler makes them: the floor of any React first screen. */
async function reactFloor(): Promise<number> {
  const r = await build({
    stdin: { contents: "import { createRoot } from 'react-dom/client'; import { createElement } from 'react'; createRoot(document.body).render(createElement('p'))", resolveDir: repoRoot, loader: 'js' },
    bundle: true, minify: true, format: 'esm', write: false, define: { 'process.env.NODE_ENV': '"production"' }, logLevel: 'silent',
  })
  return gz(r.outputFiles[0].contents)
}

export async function runUiBundle(o: { printMachine?: boolean } = {}): Promise<UiBundleResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  if (uiIsStale()) execSync('npm run --silent build:ui', { cwd: repoRoot, stdio: 'inherit' })
  const dist = path.join(repoRoot, 'ui/dist')
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8')
  // What the page loads at once: module scripts, modulepreload links and stylesheets (not the icon, not lazy chunks).
  const refs = [...html.matchAll(/<script[^>]+src="([^"]+)"|<link[^>]+rel="(?:modulepreload|stylesheet)"[^>]*href="([^"]+)"|<link[^>]+href="([^"]+)"[^>]*rel="(?:modulepreload|stylesheet)"/g)].map((x) => x[1] ?? x[2] ?? x[3])
  const files = [{ file: 'index.html', buf: Buffer.from(html) }, ...[...new Set(refs)].map((r) => ({ file: r.replace(/^\//, ''), buf: readFileSync(path.join(dist, r)) }))].map((f) => ({ file: f.file, raw: f.buf.length, gzip: gz(f.buf), brotli: br(f.buf) }))
  const total = files.reduce((a, f) => ({ raw: a.raw + f.raw, gzip: a.gzip + f.gzip, brotli: a.brotli + f.brotli }), { raw: 0, gzip: 0, brotli: 0 })
  const floor = await reactFloor()

  console.log('\nui-bundle: the console\'s first screen (the sign-in), bytes the browser fetches before drawing')
  for (const f of files) console.log(`  ${f.file.padEnd(34)} ${kB(f.raw).padStart(10)} raw  ${kB(f.gzip).padStart(9)} gzip  ${kB(f.brotli).padStart(9)} brotli`)
  console.log(`  ${'total'.padEnd(34)} ${kB(total.raw).padStart(10)} raw  ${kB(total.gzip).padStart(9)} gzip  ${kB(total.brotli).padStart(9)} brotli`)
  console.log(`  gzip total: ${(total.gzip / TARGET).toFixed(2)}× the 500 kB target (${kB(total.gzip)}); ${(total.gzip / floor).toFixed(2)}× react + react-dom alone (${kB(floor)} gzip, the floor of any React screen)`)
  return { files, total, reactFloorGzip: floor, targetGzip: TARGET }
}

runAsMain(import.meta.url, () => runUiBundle())
