/**
 * What a device's terminal sends, turned back into the lines a person would see on screen. A switch
 * talks to a terminal, not to a program: it colours its output (ANSI CSI), sets window titles (OSC),
 * ends lines with \r\n, and erases its own `--More--` prompt with backspaces and spaces. The collector
 * plays the terminal: it keeps the completed lines and the current, unterminated one (where prompts
 * appear), applying carriage returns, backspaces and the few cursor and erase sequences switches use.
 * Everything else of the escape language is dropped. Chunks may split a sequence or a UTF-8 character
 * anywhere: the state carries over from one chunk to the next.
 */
import { StringDecoder } from 'node:string_decoder'

const ESC = 0x1b

type Mode = 'text' | 'esc' | 'csi' | 'osc' | 'osc-esc' | 'esc-intermediate'

export class Terminal {
  /** Completed lines, trailing blanks removed (an erased pager prompt leaves spaces behind). */
  readonly lines: string[] = []
  /** The characters of the current line and where the cursor stands in it. */
  private cur: string[] = []
  private col = 0
  private mode: Mode = 'text'
  private params = ''
  private readonly decoder = new StringDecoder('utf8')
  /** Characters held in completed lines (a bound on what the session keeps). */
  completedChars = 0

  write(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk)
    for (const ch of text) this.put(ch)
  }

  /** The current, unterminated line as shown (a prompt waits here). */
  get current(): string {
    return this.cur.join('')
  }

  /** Forgets the current line: a pager prompt that has been answered. */
  clearCurrent(): void {
    this.cur = []
    this.col = 0
  }

  /** Drops the completed lines up to `n` (what came before a command was sent). */
  dropLines(n: number): void {
    const gone = this.lines.splice(0, n)
    for (const l of gone) this.completedChars -= l.length + 1
  }

  private newline(): void {
    const line = this.cur.join('').replace(/[ \t]+$/, '')
    this.lines.push(line)
    this.completedChars += line.length + 1
    this.cur = []
    this.col = 0
  }

  private printable(ch: string): void {
    // A cursor moved past the end leaves blanks behind, as on a screen.
    while (this.cur.length < this.col) this.cur.push(' ')
    this.cur[this.col++] = ch
  }

  /** The few CSI sequences that change what a line shows; every other one (colours, modes, scrolling) is dropped. */
  private csi(final: string): void {
    const n = (i: number, dflt: number) => {
      const v = Number.parseInt(this.params.replace(/^\?/, '').split(';')[i] ?? '', 10)
      return Number.isFinite(v) ? v : dflt
    }
    switch (final) {
      case 'K': {
        const how = n(0, 0)
        if (how === 0) this.cur.length = Math.min(this.cur.length, this.col)
        else if (how === 1) for (let i = 0; i <= this.col && i < this.cur.length; i++) this.cur[i] = ' '
        else this.cur = []
        break
      }
      case 'D':
        this.col = Math.max(0, this.col - Math.max(1, n(0, 1)))
        break
      case 'C':
        this.col += Math.max(1, n(0, 1))
        break
      case 'G':
        this.col = Math.max(0, n(0, 1) - 1)
        break
      case 'H':
      case 'f':
        // A row is meaningless in a line log: the column is what later text overwrites.
        this.col = Math.max(0, n(1, 1) - 1)
        break
      case 'J':
        if (n(0, 0) === 2) this.clearCurrent()
        break
      default:
    }
  }

  private put(ch: string): void {
    const c = ch.codePointAt(0)!
    switch (this.mode) {
      case 'esc':
        if (ch === '[') {
          this.mode = 'csi'
          this.params = ''
        } else if (ch === ']') this.mode = 'osc'
        else if (c >= 0x20 && c <= 0x2f) this.mode = 'esc-intermediate'
        else this.mode = 'text'
        return
      case 'esc-intermediate':
        if (c < 0x20 || c > 0x2f) this.mode = 'text'
        return
      case 'csi':
        if (c >= 0x40 && c <= 0x7e) {
          this.mode = 'text'
          this.csi(ch)
        } else if (this.params.length < 32) this.params += ch
        return
      case 'osc':
        if (c === 0x07) this.mode = 'text'
        else if (c === ESC) this.mode = 'osc-esc'
        return
      case 'osc-esc':
        this.mode = ch === '\\' ? 'text' : 'osc'
        return
      default:
    }
    if (c === ESC) this.mode = 'esc'
    else if (ch === '\n') this.newline()
    else if (ch === '\r') this.col = 0
    else if (c === 0x08) this.col = Math.max(0, this.col - 1)
    else if (ch === '\t') this.printable(ch)
    else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) return
    else this.printable(ch)
  }
}

/**
 * The configuration out of a command's screen: the lines after the command was sent, without the
 * echoed command (the first line, ending in the command) and without the final prompt (the current
 * line, not included). Leading and trailing blank lines go too.
 */
export function commandOutput(lines: readonly string[], command: string): string {
  const out = [...lines]
  if (out.length > 0 && out[0].trimEnd().endsWith(command.trim())) out.shift()
  while (out.length > 0 && out[0].trim() === '') out.shift()
  while (out.length > 0 && out[out.length - 1].trim() === '') out.pop()
  return out.length === 0 ? '' : out.join('\n') + '\n'
}
