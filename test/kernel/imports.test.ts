/**
 * The import graph of the source tree (`import type` counts: a type-only
 * circle is still two files that cannot be understood one without the other).
 * Holds two rules:
 * - no circle anywhere (sdk, kernel, plugins, examples, bench, test);
 * - a plugin's code (not its tests) imports the SDK, its own files and another
 *   plugin's `api.ts` (the contract that plugin publishes), nothing else of
 *   the platform: not the kernel, not another plugin's internals or index.ts
 *   (which would load that plugin's whole code into an edition without it);
 * - the push service (push/) is a process of its own: its files and the signed
 *   channel (sdk/signed-request.ts) and the request-input helpers (sdk/http-input.ts), nothing else of the platform;
 * - so is the configuration collector (collector/): its files and the SDK's pure wire files
 *   (COLLECTOR_SDK), followed through what those import in turn;
 * - a Pro package (pro/<name>/, docs/editions.md) is out of the tree: its code imports
 *   `@portcullis/sdk` by name, its own files, node: built-ins and npm packages, nothing of the
 *   platform by path (its tests may use the repository's test kit); and nothing of the Community
 *   edition (sdk, kernel, plugins, migrations) imports pro/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const DIRS = ['sdk', 'kernel', 'plugins', 'pro', 'push', 'collector', 'examples', 'bench', 'test']

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue
    const p = path.join(dir, e.name)
    if (e.isDirectory()) sources(p, out)
    else if (/\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p)
  }
  return out
}

/** `./x.js` → `./x.ts`, a folder → its index.ts; null for a package or a file outside the tree. */
function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null
  const base = path.resolve(path.dirname(from), spec)
  const tries = [base.replace(/\.(m?js)$/, (_, ext: string) => (ext === 'mjs' ? '.mts' : '.ts')), base, `${base}.ts`, path.join(base, 'index.ts')]
  return tries.find((f) => existsSync(f) && statSync(f).isFile() && /\.(ts|mts)$/.test(f)) ?? null
}

/**
 * The specifiers a file imports: `import … from`, `export … from`, `import '…'` and `import('…')`.
 * A scanner of our own: TypeScript 7's compiler has no JavaScript API to ask. The clause between
 * the keyword and `from` holds no `;`, `=`, parenthesis or quote, so a declaration
 * (`export const x = …`, `export function f(…)`) is never read as an import.
 */
export function specifiers(src: string): string[] {
  const out: string[] = []
  const patterns = [/^\s*(?:import|export)\b[^;=()'"`]*?\bfrom\s*(['"])([^'"\n]+)\1/gm, /^\s*import\s*(['"])([^'"\n]+)\1/gm, /\bimport\(\s*(['"])([^'"\n]+)\1\s*\)/g]
  for (const re of patterns) for (const m of src.matchAll(re)) out.push(m[2])
  return out
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const dir of DIRS) {
    if (!existsSync(path.join(ROOT, dir))) continue
    for (const file of sources(path.join(ROOT, dir))) {
      const deps = specifiers(readFileSync(file, 'utf8')).map((s) => resolve(file, s)).filter((f): f is string => f !== null)
      graph.set(file, [...new Set(deps)])
    }
  }
  return graph
}

/** Every circle, once each, as the files around it (Tarjan's strongly connected components). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return out
}

const rel = (f: string) => path.relative(ROOT, f)

/** What the collector process may load of the SDK: node built-ins only, no database, no plugin. */
const COLLECTOR_SDK = ['http-signatures', 'collector-protocol', 'safe-regex', 'safe-regex-parse', 'read-bytes', 'http-input'].map((f) => path.join('sdk', `${f}.ts`))

describe('the import graph', () => {
  const graph = importGraph()

  it('reads the whole tree', () => {
    expect(graph.size).to.be.above(300)
    expect(graph.get(path.join(ROOT, 'plugins/aaa-policy/index.ts'))).to.include(path.join(ROOT, 'sdk/index.ts'))
  })

  it('has no import circle', () => {
    const found = circles(graph).map((c) => c.map(rel).join(' ↔ '))
    expect(found, `import circles:\n${found.join('\n')}`).to.deep.equal([])
  })

  it('reads every form of import (the scanner itself)', () => {
    const src = [
      "import { a,\n  b } from './one.js'",
      "import type { C } from '../two.js'",
      "export * from './three.js'",
      "export { d } from \"./four.js\"",
      "import './five.js'",
      "const m = await import('./six.js')",
      "export const e = from('./not-an-import.js')",
      "export function f(x = 'from') { return x }",
    ].join('\n')
    expect(specifiers(src)).to.deep.equal(['./one.js', '../two.js', './three.js', './four.js', './five.js', './six.js'])
  })

  it('finds a circle when there is one (the check itself)', () => {
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).to.deep.equal([['a', 'b', 'c']])
    expect(circles(new Map([['a', ['a']]]))).to.deep.equal([['a']])
    expect(circles(new Map([['a', ['b']], ['b', []]]))).to.deep.equal([])
  })

  it("lets a plugin's code import only the SDK, its own files and other plugins' api.ts", () => {
    const bad: string[] = []
    for (const [file, deps] of graph) {
      const r = rel(file).split(path.sep)
      if (r[0] !== 'plugins' || r.includes('test')) continue
      const own = r[1]
      for (const dep of deps) {
        const d = rel(dep).split(path.sep)
        const ok = d[0] === 'sdk' || (d[0] === 'plugins' && (d[1] === own || (d.length === 3 && d[2] === 'api.ts')))
        if (!ok) bad.push(`${rel(file)} → ${rel(dep)}`)
      }
    }
    expect(bad, bad.join('\n')).to.deep.equal([])
  })

  it('lets the push service import only its own files, sdk/signed-request.ts and sdk/http-input.ts', () => {
    const bad: string[] = []
    let files = 0
    for (const [file, deps] of graph) {
      const r = rel(file).split(path.sep)
      if (r[0] !== 'push') continue
      files++
      for (const dep of deps) {
        const d = rel(dep)
        if (d.split(path.sep)[0] !== 'push' && d !== path.join('sdk', 'signed-request.ts') && d !== path.join('sdk', 'http-input.ts')) bad.push(`${rel(file)} → ${d}`)
      }
    }
    expect(files).to.be.above(5)
    expect(bad, bad.join('\n')).to.deep.equal([])
  })

  it('lets the collector import only its own files and the SDK wire files (COLLECTOR_SDK), through every hop', () => {
    const bad: string[] = []
    const seen = new Set<string>()
    const todo = [...graph.keys()].filter((f) => rel(f).split(path.sep)[0] === 'collector')
    while (todo.length) {
      const file = todo.pop()!
      if (seen.has(file)) continue
      seen.add(file)
      for (const dep of graph.get(file) ?? []) {
        const d = rel(dep)
        if (d.split(path.sep)[0] !== 'collector' && !COLLECTOR_SDK.includes(d)) bad.push(`${rel(file)} → ${d}`)
        else todo.push(dep)
      }
    }
    // The SDK's wire files are checked now, before collector/ exists: they import one another only.
    for (const f of COLLECTOR_SDK) for (const dep of graph.get(path.join(ROOT, f)) ?? []) if (!COLLECTOR_SDK.includes(rel(dep))) bad.push(`${f} → ${rel(dep)}`)
    expect(bad, bad.join('\n')).to.deep.equal([])
  })

  it('lets a Pro package import only @portcullis/sdk by name, its own files, node: and npm packages', () => {
    const bad: string[] = []
    let files = 0
    for (const file of sources(path.join(ROOT, 'pro'))) {
      const r = rel(file).split(path.sep)
      const test = r.includes('test')
      files++
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('.')) {
          const d = path.relative(ROOT, path.resolve(path.dirname(file), spec)).split(path.sep)
          // Its own package's files; a test may use the repository's test kit as well.
          const ok = (r.length > 2 && d[0] === 'pro' && d[1] === r[1]) || (test && d[0] === 'test' && d[1] === 'kit')
          if (!ok) bad.push(`${rel(file)} → ${spec}`)
        } else if (spec.startsWith('@portcullis/') && !(spec === '@portcullis/sdk' || (test && spec === '@portcullis/sdk/testing'))) bad.push(`${rel(file)} → ${spec}`)
      }
    }
    expect(files).to.be.above(1)
    expect(bad, bad.join('\n')).to.deep.equal([])
  })

  it('keeps pro/ out of the Community edition: sdk, kernel, plugins and migrations import nothing of it', () => {
    const bad: string[] = []
    for (const [file, deps] of graph) {
      if (!['sdk', 'kernel', 'plugins', 'migrations', 'push', 'collector'].includes(rel(file).split(path.sep)[0])) continue
      for (const dep of deps) if (rel(dep).split(path.sep)[0] === 'pro') bad.push(`${rel(file)} → ${rel(dep)}`)
    }
    for (const dir of ['sdk', 'kernel', 'plugins', 'migrations']) {
      for (const file of sources(path.join(ROOT, dir))) for (const spec of specifiers(readFileSync(file, 'utf8'))) if (/^@portcullis\/pro-|(^|\/)pro\//.test(spec)) bad.push(`${rel(file)} → ${spec}`)
    }
    expect(bad, bad.join('\n')).to.deep.equal([])
  })
})
