/**
 * The console asks before a destructive action in its own dialog
 * (ui/src/components/Confirm.tsx), never with the browser's `confirm()`: a
 * browser may suppress it (after "prevent this page from creating dialogs"
 * every later question answers false unseen), it cannot name what the action
 * touches in the screen's layout, and a test driving the page cannot see it.
 * This reads every source file of ui/src and fails on a call of the global
 * `confirm` (bare, or through window, self or globalThis), with its place.
 */
import { expect } from 'chai'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const UI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ui/src')

/** Comments out: a comment may mention `confirm()` (Confirm.tsx's own does, to say why it exists). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')

/** A call of the browser's global confirm: `confirm(`, `window.confirm(`, `self.confirm(`, `globalThis.confirm(`, `window['confirm'](`. */
const GLOBAL_CONFIRM = /(?:(?<![\w$.])|\b(?:window|self|globalThis)\s*\??\.\s*)confirm\s*\(|\b(?:window|self|globalThis)\s*\[\s*['"`]confirm['"`]\s*\]/

/** Each line of `text` that calls the global confirm, as "line: text". */
function offending(text: string): string[] {
  return code(text).split('\n').flatMap((line, i) => (GLOBAL_CONFIRM.test(line) ? [`${i + 1}: ${line.trim()}`] : []))
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? sources(p) : /\.(tsx?|jsx?)$/.test(e.name) ? [p] : []
  })
}

describe('console: no browser confirm() in ui/src', () => {
  it('recognises the global confirm in its forms, and leaves the console\'s own confirm alone', () => {
    for (const bad of ['window.confirm("x") && go()', 'if (confirm(q)) go()', 'onClick={() => confirm(q)}', 'globalThis.confirm(q)', 'self.confirm (q)', "window['confirm'](q)", 'window?.confirm(q)']) {
      expect(offending(bad), bad).to.have.length(1)
    }
    for (const fine of ['const ok = await ask({ title })', 't.confirm.title(a, b)', 'props.confirm(x)', 'onConfirm()', 'useConfirm()', '// window.confirm(q) was here', '/* confirm(q) */ go()', "label: 'Confirm'"]) {
      expect(offending(fine), fine).to.deep.equal([])
    }
  })

  it('finds no call of it in any source file of the console', () => {
    const files = sources(UI)
    expect(files.length, 'the console\'s sources are read').to.be.greaterThan(50)
    const found = files.flatMap((f) => offending(readFileSync(f, 'utf8')).map((l) => `${path.relative(UI, f)}:${l}`))
    expect(found, 'ask with useConfirm() (components/Confirm.tsx) instead').to.deep.equal([])
  })
})
