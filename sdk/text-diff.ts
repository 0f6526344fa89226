/**
 * A line diff for large texts (device configurations of 50,000 lines and more), printed as a unified
 * diff in the format of the deploy dry run (kernel/deploy/diff.ts): `--- from` / `+++ to` headers,
 * `@@ -s,l +s,l @@` hunks, and GNU's `\ No newline at end of file` after a last line without one.
 *
 * How: every line is interned to an Int32 id (equal lines, equal ids: the inner loops compare numbers),
 * the common prefix and suffix are trimmed, and the rest runs through Myers' O(ND) algorithm in linear
 * space (the "middle snake" divide and conquer, as GNU diff does). Memory stays O(N + M) whatever the
 * edit distance. Time is O((N + M)·D) at worst, so a region whose edit distance passes `maxCost` is given
 * up on and printed as one replaced block: the patch is still correct (it turns the one text into the
 * other), only no longer the shortest. `minimal: false` says so.
 */

export interface TextDiffOptions {
  /** Unchanged lines shown around each change (default 3). */
  context?: number
  /** The largest edit distance (lines removed + added) searched exactly per region (default 20,000). */
  maxCost?: number
  /** Header names (default `a` and `b`). */
  fromLabel?: string
  toLabel?: string
  /**
   * The most UTF-8 bytes of `unified`: the hunk that would pass it is cut after its last line that fits
   * (its header counting only those lines) and nothing follows. The counts stay whole.
   */
  maxBytes?: number
}

export interface TextDiff {
  /** The unified diff; '' when the texts are equal. */
  unified: string
  /** Lines added and removed (of the whole diff, also when `unified` was cut at `maxBytes`). */
  added: number
  removed: number
  /** `unified` was cut at `maxBytes`: it covers only the beginning of the changes. */
  truncated: boolean
  /** false when a region passed `maxCost` and was printed as one replaced block. */
  minimal: boolean
}

export const TEXT_DIFF_MAX_COST = 20_000

const NO_EOL = '\\ No newline at end of file'

/** The lines of a text; `eol` false when the last one has no line end (it then differs from the same text with one). */
function lines(s: string): { lines: string[]; eol: boolean } {
  if (s === '') return { lines: [], eol: true }
  const ls = s.split('\n')
  if (ls[ls.length - 1] === '') {
    ls.pop()
    return { lines: ls, eol: true }
  }
  return { lines: ls, eol: false }
}

/**
 * Interns both sides' lines into ids; the last line without a line end gets an id of its own. The common
 * prefix and suffix are found on the strings first and only the lines between are hashed: on two
 * versions of a large configuration that is most of the work saved. Their ids are negative, equal on
 * both sides position by position, so the diff trims them again at once and never meets them elsewhere.
 */
function intern(a: { lines: string[]; eol: boolean }, b: { lines: string[]; eol: boolean }): [Int32Array, Int32Array] {
  // '\n' never occurs inside a line, so this key cannot meet a real line.
  const key = (side: { lines: string[]; eol: boolean }, i: number) => (!side.eol && i === side.lines.length - 1 ? `\n${side.lines[i]}` : side.lines[i])
  const n = a.lines.length
  const m = b.lines.length
  let pre = 0
  while (pre < n && pre < m && key(a, pre) === key(b, pre)) pre++
  let suf = 0
  while (suf < n - pre && suf < m - pre && key(a, n - 1 - suf) === key(b, m - 1 - suf)) suf++
  const A = new Int32Array(n)
  const B = new Int32Array(m)
  for (let i = 0; i < pre; i++) A[i] = B[i] = -1 - i
  for (let k = 1; k <= suf; k++) A[n - k] = B[m - k] = -1 - pre - k
  const ids = new Map<string, number>()
  const one = (side: { lines: string[]; eol: boolean }, out: Int32Array) => {
    for (let i = pre; i < out.length - suf; i++) {
      const k = key(side, i)
      let id = ids.get(k)
      if (id === undefined) ids.set(k, (id = ids.size))
      out[i] = id
    }
  }
  one(a, A)
  one(b, B)
  return [A, B]
}

/**
 * Marks in `delA` / `insB` the lines removed from A and added from B (a shortest edit script where the
 * cost allows). fd/bd are the forward and backward furthest-reaching x per diagonal, shared by the whole
 * recursion: a call is done with them before it recurses.
 */
class Myers {
  private readonly fd: Int32Array
  private readonly bd: Int32Array
  private readonly off: number
  readonly delA: Uint8Array
  readonly insB: Uint8Array
  minimal = true

  constructor(
    private readonly A: Int32Array,
    private readonly B: Int32Array,
    private readonly maxCost: number,
  ) {
    const size = A.length + B.length + 3
    this.fd = new Int32Array(size)
    this.bd = new Int32Array(size)
    this.off = B.length + 1
    this.delA = new Uint8Array(A.length)
    this.insB = new Uint8Array(B.length)
  }

  compare(xoff: number, xlim: number, yoff: number, ylim: number): void {
    const { A, B } = this
    // An explicit stack instead of recursion: each split halves the edit distance, but a deep call chain
    // is not worth the risk on 50,000-line inputs.
    const stack: number[] = [xoff, xlim, yoff, ylim]
    while (stack.length) {
      let yl = stack.pop()!
      let yo = stack.pop()!
      let xl = stack.pop()!
      let xo = stack.pop()!
      while (xo < xl && yo < yl && A[xo] === B[yo]) xo++, yo++
      while (xl > xo && yl > yo && A[xl - 1] === B[yl - 1]) xl--, yl--
      if (xo === xl) {
        for (let j = yo; j < yl; j++) this.insB[j] = 1
        continue
      }
      if (yo === yl) {
        for (let i = xo; i < xl; i++) this.delA[i] = 1
        continue
      }
      const mid = this.middleSnake(xo, xl, yo, yl)
      // No split (past the cost limit, or a split that would not shrink the region): one replaced block.
      if (mid === null || (mid[0] === xo && mid[1] === yo) || (mid[0] === xl && mid[1] === yl)) {
        if (mid === null) this.minimal = false
        for (let i = xo; i < xl; i++) this.delA[i] = 1
        for (let j = yo; j < yl; j++) this.insB[j] = 1
        continue
      }
      stack.push(mid[0], xl, mid[1], yl)
      stack.push(xo, mid[0], yo, mid[1])
    }
  }

  /**
   * A point on a shortest path through A[xoff, xlim) × B[yoff, ylim), found by running forward from the
   * top left and backward from the bottom right until the two frontiers overlap (Myers 1986, section 4b).
   * Diagonal k = x - y; `off` keeps the indices positive. null once the cost passes maxCost.
   */
  private middleSnake(xoff: number, xlim: number, yoff: number, ylim: number): [number, number] | null {
    const { A, B, fd, bd, off } = this
    const dmin = xoff - ylim
    const dmax = xlim - yoff
    const fmid = xoff - yoff
    const bmid = xlim - ylim
    let fmin = fmid
    let fmax = fmid
    let bmin = bmid
    let bmax = bmid
    const odd = ((fmid - bmid) & 1) !== 0
    fd[fmid + off] = xoff
    bd[bmid + off] = xlim
    const limit = Math.max(1, Math.ceil(this.maxCost / 2))
    for (let c = 1; c <= limit; c++) {
      // Forward: widen the band of diagonals by one at each end (or narrow it at the region's edge).
      if (fmin > dmin) fd[--fmin - 1 + off] = -1
      else ++fmin
      if (fmax < dmax) fd[++fmax + 1 + off] = -1
      else --fmax
      for (let d = fmax + off; d >= fmin + off; d -= 2) {
        const tlo = fd[d - 1]
        const thi = fd[d + 1]
        let x = tlo >= thi ? tlo + 1 : thi
        let y = x - d + off
        while (x < xlim && y < ylim && A[x] === B[y]) x++, y++
        fd[d] = x
        if (odd && bmin + off <= d && d <= bmax + off && bd[d] <= x) return [x, y]
      }
      // Backward, the same from the other corner.
      if (bmin > dmin) bd[--bmin - 1 + off] = 0x7fffffff
      else ++bmin
      if (bmax < dmax) bd[++bmax + 1 + off] = 0x7fffffff
      else --bmax
      for (let d = bmax + off; d >= bmin + off; d -= 2) {
        const tlo = bd[d - 1]
        const thi = bd[d + 1]
        let x = tlo < thi ? tlo : thi - 1
        let y = x - d + off
        while (x > xoff && y > yoff && A[x - 1] === B[y - 1]) x--, y--
        bd[d] = x
        if (!odd && fmin + off <= d && d <= fmax + off && x <= fd[d]) return [x, y]
      }
    }
    return null
  }
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8')
}

/** A unified diff turning `a` into `b`, with the counts of lines added and removed. */
export function unifiedDiff(a: string, b: string, options: TextDiffOptions = {}): TextDiff {
  const context = Math.max(0, Math.floor(options.context ?? 3))
  const maxCost = Math.max(1, Math.floor(options.maxCost ?? TEXT_DIFF_MAX_COST))
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY
  const la = lines(a)
  const lb = lines(b)
  const [A, B] = intern(la, lb)
  const m = new Myers(A, B, maxCost)
  m.compare(0, A.length, 0, B.length)
  const { delA, insB } = m

  // Change groups: [aStart, aEnd, bStart, bEnd), walking both sides in step.
  const groups: number[] = []
  let removed = 0
  let added = 0
  for (let i = 0, j = 0; i < A.length || j < B.length; ) {
    if (i < A.length && j < B.length && !delA[i] && !insB[j]) {
      i++, j++
      continue
    }
    const i0 = i
    const j0 = j
    while (i < A.length && delA[i]) i++
    while (j < B.length && insB[j]) j++
    removed += i - i0
    added += j - j0
    groups.push(i0, i, j0, j)
  }
  if (groups.length === 0) return { unified: '', added: 0, removed: 0, truncated: false, minimal: m.minimal }

  const aLast = la.eol ? -1 : A.length - 1
  const bLast = lb.eol ? -1 : B.length - 1
  const out = [`--- ${options.fromLabel ?? 'a'}`, `+++ ${options.toLabel ?? 'b'}`]
  let bytes = utf8Length(out[0]) + utf8Length(out[1]) + 2
  let truncated = false
  for (let g = 0; g < groups.length; ) {
    // A hunk takes the following groups while the unchanged lines between two are at most 2·context.
    let h = g
    while (h + 4 < groups.length && groups[h + 4] - groups[h + 1] <= 2 * context) h += 4
    const aFrom = Math.max(0, groups[g] - context)
    const aTo = Math.min(A.length, groups[h + 1] + context)
    const bFrom = groups[g + 2] - (groups[g] - aFrom)
    const bTo = groups[h + 3] + (aTo - groups[h + 1])
    // One entry a line, its `\ No newline` marker attached: a cut never separates them.
    const body: string[] = []
    const push = (prefix: string, text: string, last: boolean) => body.push(last ? `${prefix}${text}\n${NO_EOL}` : prefix + text)
    let i = aFrom
    let j = bFrom
    for (let k = g; k <= h; k += 4) {
      for (; i < groups[k]; i++, j++) push(' ', la.lines[i], i === aLast)
      for (; i < groups[k + 1]; i++) push('-', la.lines[i], i === aLast)
      for (; j < groups[k + 3]; j++) push('+', lb.lines[j], j === bLast)
    }
    for (; i < aTo; i++, j++) push(' ', la.lines[i], i === aLast)
    const head = (units: readonly string[]) => {
      let aLen = 0
      let bLen = 0
      for (const u of units) {
        if (u[0] !== '+') aLen++
        if (u[0] !== '-') bLen++
      }
      return `@@ -${aFrom + (aLen ? 1 : 0)},${aLen} +${bFrom + (bLen ? 1 : 0)},${bLen} @@`
    }
    let size = utf8Length(head(body)) + 1
    for (const l of body) size += utf8Length(l) + 1
    if (bytes + size > maxBytes) {
      // The hunk's first lines that fit, under a header counting just them: still a valid patch of
      // the beginning, so a huge single change shows its start instead of nothing.
      const HEAD_ROOM = 80
      let used = bytes + HEAD_ROOM
      let n = 0
      while (n < body.length && used + utf8Length(body[n]) + 1 <= maxBytes) used += utf8Length(body[n++]) + 1
      const part = body.slice(0, n)
      if (part.some((u) => u[0] === '-' || u[0] === '+')) {
        out.push(head(part))
        for (const l of part) out.push(l)
      }
      truncated = true
      break
    }
    bytes += size
    out.push(head(body))
    for (const l of body) out.push(l)
    g = h + 4
  }
  return { unified: out.join('\n') + '\n', added, removed, truncated, minimal: m.minimal }
}
