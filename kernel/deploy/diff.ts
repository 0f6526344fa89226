/**
 * A small line diff (longest common subsequence) printed as a unified diff with 3 lines of context,
 * and the file-by-file comparison of two releases the dry run shows.
 */
import { releaseMasker } from '../../sdk/index.js'
import type { ReadFile } from './files.js'
import type { FileChange } from './model.js'

type Op = { t: ' ' | '-' | '+'; line: string; a: number; b: number }

function ops(a: string[], b: string[]): Op[] {
  let pre = 0
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++
  let suf = 0
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++
  const am = a.slice(pre, a.length - suf)
  const bm = b.slice(pre, b.length - suf)
  const out: Op[] = []
  for (let i = 0; i < pre; i++) out.push({ t: ' ', line: a[i], a: i, b: i })
  const n = am.length
  const m = bm.length
  if (n * m > 4_000_000) {
    // Too large for the table: the whole middle as replaced.
    am.forEach((l, i) => out.push({ t: '-', line: l, a: pre + i, b: pre }))
    bm.forEach((l, j) => out.push({ t: '+', line: l, a: pre + n, b: pre + j }))
  } else {
    const w = m + 1
    const L = new Uint32Array((n + 1) * w)
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i * w + j] = am[i] === bm[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1])
    let i = 0
    let j = 0
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        out.push({ t: ' ', line: am[i], a: pre + i, b: pre + j })
        i++
        j++
      } else if (j < m && (i === n || L[i * w + j + 1] >= L[(i + 1) * w + j])) {
        out.push({ t: '+', line: bm[j], a: pre + i, b: pre + j })
        j++
      } else {
        out.push({ t: '-', line: am[i], a: pre + i, b: pre + j })
        i++
      }
    }
  }
  for (let k = 0; k < suf; k++) out.push({ t: ' ', line: a[a.length - suf + k], a: a.length - suf + k, b: b.length - suf + k })
  return out
}

const split = (s: string) => (s === '' ? [] : s.replace(/\n$/, '').split('\n'))

export function unifiedDiff(before: string, after: string, name: string, context = 3): string {
  const all = ops(split(before), split(after))
  const changed = all.map((o, i) => (o.t !== ' ' ? i : -1)).filter((i) => i >= 0)
  if (!changed.length) return ''
  const lines = [`--- a/${name}`, `+++ b/${name}`]
  let k = 0
  while (k < changed.length) {
    const start = Math.max(0, changed[k] - context)
    let end = Math.min(all.length - 1, changed[k] + context)
    while (k + 1 < changed.length && changed[k + 1] - context <= end + 1) {
      k++
      end = Math.min(all.length - 1, changed[k] + context)
    }
    k++
    const hunk = all.slice(start, end + 1)
    const aLen = hunk.filter((o) => o.t !== '+').length
    const bLen = hunk.filter((o) => o.t !== '-').length
    const aStart = hunk[0].a + (aLen ? 1 : 0)
    const bStart = hunk[0].b + (bLen ? 1 : 0)
    lines.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`)
    for (const o of hunk) lines.push(o.t + o.line)
  }
  return lines.join('\n') + '\n'
}

/**
 * Each path of either release: added, removed, changed (content or mode) or unchanged, with a diff of
 * the masked contents. `secrets`: those of both releases (the one deployed and the one rendered now),
 * each masked on both sides, so a secret changed since shows as neither its old nor its new value.
 */
export function releaseChanges(before: readonly ReadFile[], after: readonly ReadFile[], secrets: Iterable<string> = []): FileChange[] {
  const mask = releaseMasker(secrets)
  const b0 = new Map(before.map((f) => [f.path, f]))
  const a0 = new Map(after.map((f) => [f.path, f]))
  return [...new Set([...b0.keys(), ...a0.keys()])].sort().map((p): FileChange => {
    const b = b0.get(p)
    const a = a0.get(p)
    const change = !b ? 'added' : !a ? 'removed' : b.sha256 !== a.sha256 || b.mode !== a.mode ? 'changed' : 'unchanged'
    const diff = change === 'unchanged' ? '' : unifiedDiff(mask(b?.content ?? ''), mask(a?.content ?? ''), p)
    return { path: p, change, diff, mode_before: b?.mode ?? null, mode_after: a?.mode ?? null }
  })
}
