/** The last lines a daemon printed (stdout and stderr interleaved as they arrive), each masked as it is kept. */

export const TAIL_LINES = 20
/** A line longer than this is cut: one runaway line must not hold the memory of twenty. */
const LINE_MAX = 2000

export class OutputTail {
  private lines: string[] = []
  /** Lines pushed since the start: `since(mark)` gives those of one run. */
  private total = 0
  private partial = new Map<NodeJS.ReadableStream, string>()
  private readonly listeners = new Set<(line: string) => void>()

  constructor(
    private mask: (s: string) => string = (s) => s,
    private readonly max = TAIL_LINES,
  ) {}

  /** The masker of the release now starting (its secrets differ from the last one's). */
  setMask(mask: (s: string) => string): void {
    this.mask = mask
  }

  follow(stream: NodeJS.ReadableStream): void {
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      const text = (this.partial.get(stream) ?? '') + chunk
      const parts = text.split('\n')
      const rest = parts.pop() ?? ''
      for (const l of parts) this.push(l)
      this.partial.set(stream, rest.length > LINE_MAX ? rest.slice(0, LINE_MAX) : rest)
    })
    stream.on('end', () => {
      const rest = this.partial.get(stream)
      if (rest) this.push(rest)
      this.partial.delete(stream)
    })
  }

  /** A line of the supervisor's own (`-- started …`), so the tail reads as a story across restarts. */
  note(line: string): void {
    this.push(line)
  }

  /** Calls `fn` with each line kept from now on (masked), until the returned function is called. */
  listen(fn: (line: string) => void): () => void {
    this.listeners.add(fn)
    return () => void this.listeners.delete(fn)
  }

  get(): string[] {
    return [...this.lines]
  }

  /** A mark to pass to `since`. */
  mark(): number {
    return this.total
  }

  /** The lines kept that came after `mark`. */
  since(mark: number): string[] {
    const n = Math.min(this.total - mark, this.lines.length)
    return n > 0 ? this.lines.slice(this.lines.length - n) : []
  }

  private push(line: string): void {
    const clean = line.replace(/\r$/, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').slice(0, LINE_MAX)
    if (clean.trim() === '') return
    const masked = this.mask(clean)
    this.lines.push(masked)
    this.total++
    for (const fn of this.listeners) fn(masked)
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max)
  }
}
