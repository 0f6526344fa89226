/**
 * `npm run build:pro`: the Pro edition's packages (every folder pro/<name>/ with
 * a package.json) built each into its own dist/, file by file (no bundling:
 * a plugin finds its migrations, locales and web assets on disk beside its
 * code). `@portcullis/sdk` stays an import by name: the server answers it
 * with its own SDK at run time (kernel/plugins/sdk-resolution.ts). What is not
 * TypeScript (locales, web/ pages) is copied as it is. Tests are not built.
 *
 * `npm run build` (the Community edition) never reads this folder, so its
 * dist/ holds no Pro code; the Pro image adds pro/<name>/dist (Dockerfile).
 */
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const PRO = path.dirname(fileURLToPath(import.meta.url))
const SKIP = new Set(['dist', 'node_modules', 'test'])

/** The package's files, relative to it: its code (.ts, not tests or declarations) and everything else but package.json. */
function files(dir: string, rel = ''): { code: string[]; assets: string[] } {
  const out = { code: [] as string[], assets: [] as string[] }
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (SKIP.has(e.name) || e.name.startsWith('.')) continue
    const p = path.join(rel, e.name)
    if (e.isDirectory()) {
      const sub = files(dir, p)
      out.code.push(...sub.code)
      out.assets.push(...sub.assets)
    } else if (/\.(ts|mts)$/.test(e.name)) {
      if (!e.name.endsWith('.d.ts') && !/\.test\.m?ts$/.test(e.name)) out.code.push(p)
    } else if (!(rel === '' && ['package.json', 'tsconfig.json'].includes(e.name))) out.assets.push(p)
  }
  return out
}

export async function buildPro(): Promise<string[]> {
  const built: string[] = []
  for (const name of readdirSync(PRO).sort()) {
    const dir = path.join(PRO, name)
    if (!existsSync(path.join(dir, 'package.json'))) continue
    const out = path.join(dir, 'dist')
    rmSync(out, { recursive: true, force: true })
    const { code, assets } = files(dir)
    await build({
      entryPoints: code.map((f) => path.join(dir, f)),
      outbase: dir,
      outdir: out,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: true,
      logLevel: 'warning',
    })
    for (const a of assets) cpSync(path.join(dir, a), path.join(out, a))
    if (!existsSync(path.join(out, 'index.js'))) throw new Error(`pro/${name}: no index.ts, so no dist/index.js to load`)
    built.push(name)
  }
  return built
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildPro()
  process.stdout.write(`build:pro: ${built.map((n) => `pro/${n}/dist`).join(', ') || 'no Pro package'}\n`)
}
