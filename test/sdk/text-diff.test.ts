/**
 * sdk/text-diff.ts against jsdiff (the `diff` package) as the oracle: its applyPatch must turn the
 * one text into the other with our patch, and on small texts our counts equal its minimal ones.
 * No app: milliseconds.
 */
import { expect } from 'chai'
import { applyPatch, diffLines } from 'diff'
import fc from 'fast-check'
import { unifiedDiff as deployDiff } from '../../kernel/deploy/diff.js'
import { unifiedDiff } from '../../sdk/text-diff.js'

/** Texts from few distinct lines, so that the two sides share many (the interesting case for a diff). */
const line = fc.constantFrom('', ' ', 'interface Gi0/1', ' ip address 10.0.0.1 255.255.255.0', '!', 'a', 'b', 'c', 'd', 'no ip http server', 'x\ty', 'ü', '\\ No newline at end of file', '--- a', '@@ -1,1 +1,1 @@', '+', '-')
const text = fc.tuple(fc.array(line, { maxLength: 40 }), fc.boolean()).map(([ls, eol]) => ls.join('\n') + (eol && ls.length ? '\n' : ''))
/** b as a's lines with some removed, inserted or replaced: the shape of a configuration's next version. */
const pair = text.chain((a) =>
  fc.array(fc.tuple(fc.nat(), fc.constantFrom('del', 'ins', 'rep'), line), { maxLength: 8 }).chain((edits) =>
    fc.boolean().map((eol) => {
      const ls = a === '' ? [] : a.replace(/\n$/, '').split('\n')
      for (const [at, kind, l] of edits) {
        const k = ls.length ? at % ls.length : 0
        if (kind === 'del') ls.splice(k, 1)
        else if (kind === 'ins') ls.splice(k, 0, l)
        else ls.splice(k, 1, l)
      }
      return [a, ls.join('\n') + (eol && ls.length ? '\n' : '')] as const
    }),
  ),
)
const apply = (a: string, patch: string) => applyPatch(a, patch, { autoConvertLineEndings: false })
/** jsdiff's shortest edit: lines added and removed. */
function oracle(a: string, b: string) {
  let added = 0
  let removed = 0
  for (const c of diffLines(a, b)) {
    if (c.added) added += c.count
    else if (c.removed) removed += c.count
  }
  return { added, removed }
}

describe('sdk: text-diff', () => {
  it('its patch turns a into b (jsdiff applyPatch), for any context', () => {
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(text, text)), fc.integer({ min: 0, max: 4 }), ([a, b], context) => {
        const d = unifiedDiff(a, b, { context })
        if (a === b) return d.unified === '' && d.added === 0 && d.removed === 0
        return apply(a, d.unified) === b
      }),
      { numRuns: 300 },
    )
  })

  it('is minimal on small texts: the same counts as jsdiff', () => {
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(text, text)), ([a, b]) => {
        const d = unifiedDiff(a, b)
        expect({ added: d.added, removed: d.removed }).to.deep.equal(oracle(a, b))
        expect(d.minimal).to.equal(true)
      }),
      { numRuns: 300 },
    )
  })

  it('past maxCost a region is one replaced block: still correct, no longer minimal', () => {
    fc.assert(
      fc.property(fc.tuple(text, text), fc.integer({ min: 1, max: 4 }), ([a, b], maxCost) => {
        const d = unifiedDiff(a, b, { maxCost })
        expect(apply(a, d.unified)).to.equal(b)
        const best = oracle(a, b)
        expect(d.added + d.removed).to.be.at.least(best.added + best.removed)
        if (!d.minimal) expect(d.added - d.removed).to.equal(best.added - best.removed)
      }),
      { numRuns: 200 },
    )
    const a = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n') + '\n'
    const b = Array.from({ length: 200 }, (_, i) => `line ${i % 2 ? i : -i}`).join('\n') + '\n'
    const cut = unifiedDiff(a, b, { maxCost: 10 })
    expect(cut.minimal).to.equal(false)
    expect(apply(a, cut.unified)).to.equal(b)
    expect(unifiedDiff(a, b).minimal).to.equal(true)
  })

  it('cut at maxBytes, it stays within them and still applies: the beginning of the changes', () => {
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(text, text)), fc.integer({ min: 0, max: 400 }), ([a, b], maxBytes) => {
        const whole = unifiedDiff(a, b)
        const cut = unifiedDiff(a, b, { maxBytes })
        expect({ added: cut.added, removed: cut.removed }).to.deep.equal({ added: whole.added, removed: whole.removed })
        if (!cut.truncated) {
          expect(cut.unified).to.equal(whole.unified)
          return
        }
        expect(Buffer.byteLength(cut.unified)).to.be.at.most(Math.max(maxBytes, Buffer.byteLength('--- a\n+++ b\n')))
        // Its lines are the whole diff's first ones (hunk headers aside).
        const body = (u: string) => u.split('\n').slice(2).filter((l) => !l.startsWith('@@'))
        const part = body(cut.unified)
        expect(body(whole.unified).slice(0, part.length - 1)).to.deep.equal(part.slice(0, -1))
        if (cut.unified.includes('\n@@')) expect(apply(a, cut.unified)).to.be.a('string')
      }),
      { numRuns: 200 },
    )
  })

  it('prints the format of the deploy dry run, and marks a last line without a line end', () => {
    const a = 'hostname sw1\ninterface Gi0/1\n description uplink\n!\nend\n'
    // (Within a replaced block the deploy diff prints the added lines first; this diff, as GNU diff and
    // git do, the removed ones: the examples below have no replacement.)
    for (const b of ['hostname sw1\ninterface Gi0/1\n description uplink\n shutdown\n!\nend\n', 'hostname sw1\n!\nend\n', 'hostname sw1\ninterface Gi0/1\n!\nend\n']) {
      for (const context of [0, 1, 3]) expect(unifiedDiff(a, b, { context, fromLabel: 'a/sw1.cfg', toLabel: 'b/sw1.cfg' }).unified).to.equal(deployDiff(a, b, 'sw1.cfg', context))
    }
    // Hunks, their context and where two merge: as the deploy diff, on texts whose alignment is unique
    // (distinct lines, one side a subsequence of the other: only lines removed, or only added).
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), fc.integer({ min: 0, max: 4 }), fc.boolean(), (n, keep, context, flip) => {
        const all = Array.from({ length: n }, (_, i) => `line ${i}`)
        const a = all.join('\n') + '\n'
        const kept = all.filter((_, i) => keep[i])
        const b = kept.length ? kept.join('\n') + '\n' : ''
        const [x, y] = flip ? [b, a] : [a, b]
        expect(unifiedDiff(x, y, { context, fromLabel: 'a/f', toLabel: 'b/f' }).unified).to.equal(deployDiff(x, y, 'f', context))
      }),
      { numRuns: 200 },
    )
    expect(unifiedDiff('x', 'x\n').unified).to.equal('--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+x\n')
  })

  it('diffs 50,000 lines with scattered edits quickly and cuts the text at maxBytes, the counts whole', () => {
    const a = Array.from({ length: 50_000 }, (_, i) => `interface Gi${i}`)
    const b = a.slice()
    for (let k = 0; k < 10; k++) b[k * 4_999 + 7] = `interface Te${k}`
    const at = Date.now()
    const d = unifiedDiff(a.join('\n') + '\n', b.join('\n') + '\n')
    expect(Date.now() - at, 'ms').to.be.below(5_000) // generous: a shared, loaded machine; the bench measures it
    expect(d).to.include({ added: 10, removed: 10, truncated: false, minimal: true })
    expect(apply(a.join('\n') + '\n', d.unified)).to.equal(b.join('\n') + '\n')
    const cut = unifiedDiff(a.join('\n') + '\n', b.join('\n') + '\n', { maxBytes: 400 })
    expect(cut).to.include({ added: 10, removed: 10, truncated: true })
    expect(Buffer.byteLength(cut.unified)).to.be.at.most(400)
    expect(cut.unified.split('\n@@').length - 1).to.be.within(1, 9)
  })
})
