/**
 * Every catalogue says everything in both languages: a key in a plugin's (or the kernel's) English
 * catalogue has a Russian entry and the other way round, so no message falls back to English
 * silently, and every coded error's message key names an English entry. Plural forms count as one
 * key (English `_one`/`_other`, Russian `_one`/`_few`/`_many`/`_other`). No database: both engines alike.
 */
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect } from 'chai'

const ROOT = new URL('../../', import.meta.url).pathname
const PLURAL = /_(zero|one|two|few|many|other)$/

type Tree = { [k: string]: string | Tree }

/** A plural form is one of a family with an `_other` member (`who_exactly_one` alone is a plain key). */
function keysOf(tree: Tree, prefix = ''): Set<string> {
  const out = new Set<string>()
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k
    const base = k.replace(PLURAL, '')
    const plural = base !== k && typeof tree[`${base}_other`] === 'string'
    if (typeof v === 'string') out.add(plural ? key.replace(PLURAL, '') : key)
    else for (const sub of keysOf(v, key)) out.add(sub)
  }
  return out
}

/** A plugin's namespace is its id (`greetings` in examples/greetings-plugin). */
function pluginId(dir: string, fallback: string): string {
  const index = join(dir, 'index.ts')
  const m = existsSync(index) ? /\bid:\s*'([a-z0-9-]+)'/.exec(readFileSync(index, 'utf8')) : null
  return m ? m[1] : fallback
}

/** The catalogues: the kernel's (namespace core) and one pair a plugin folder (namespace: the plugin's id). */
function cataloguePairs(): { ns: string; en: string; ru: string }[] {
  const pairs = [{ ns: 'core', en: 'kernel/locales/en.ts', ru: 'kernel/locales/ru.ts' }]
  for (const parent of ['plugins', 'pro', 'examples']) {
    const dir = join(ROOT, parent)
    if (!existsSync(dir)) continue
    for (const name of readdirSync(dir)) {
      const en = join(dir, name, 'locales/en.ts')
      if (existsSync(en)) pairs.push({ ns: pluginId(join(dir, name), name), en: relative(ROOT, en), ru: relative(ROOT, join(dir, name, 'locales/ru.ts')) })
    }
  }
  return pairs
}

const load = async (file: string): Promise<Tree> => ((await import(pathToFileURL(join(ROOT, file)).href)) as { default: Tree }).default

/** Source files of the server (not the console, not tests). */
function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'test' || name === 'ui' || name === 'locales' || name.startsWith('.')) continue
    const p = join(dir, name)
    if (statSync(p).isDirectory()) sources(p, out)
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(p)
  }
  return out
}

describe('message catalogues are complete in English and Russian', function () {
  this.timeout(30_000)
  const pairs = cataloguePairs()
  const byNs = new Map<string, { en: Set<string>; ru: Set<string> }>()
  before(async () => {
    for (const p of pairs) {
      const prev = byNs.get(p.ns) ?? { en: new Set<string>(), ru: new Set<string>() }
      for (const k of keysOf(await load(p.en))) prev.en.add(k)
      if (existsSync(join(ROOT, p.ru))) for (const k of keysOf(await load(p.ru))) prev.ru.add(k)
      byNs.set(p.ns, prev)
    }
  })

  it('finds the kernel\'s and the plugins\' catalogues', () => {
    expect(pairs.length).to.be.greaterThan(10)
    expect(byNs.get('core')!.en.size).to.be.greaterThan(50)
  })

  it('every English key has a Russian entry and every Russian key an English one', () => {
    const missing: string[] = []
    for (const [ns, { en, ru }] of byNs) {
      for (const k of en) if (!ru.has(k)) missing.push(`${ns}:${k} has no Russian entry`)
      for (const k of ru) if (!en.has(k)) missing.push(`${ns}:${k} is only in Russian`)
    }
    expect(missing).to.deep.equal([])
  })

  it('every coded error\'s message key is in the English catalogue', () => {
    const unknown: string[] = []
    const roots = ['sdk', 'kernel', 'plugins', 'pro', 'examples'].map((d) => join(ROOT, d)).filter(existsSync)
    for (const file of roots.flatMap((r) => sources(r))) {
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(/defineError\(\s*\d{3}\s*,\s*'[A-Z0-9_]+'\s*,\s*'([a-z0-9_-]+):([A-Za-z0-9_.]+)'/g)) {
        const [, ns, key] = m
        if (!byNs.get(ns)?.en.has(key)) unknown.push(`${relative(ROOT, file)}: ${ns}:${key}`)
      }
    }
    expect(unknown).to.deep.equal([])
  })
})
