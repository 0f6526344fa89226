/**
 * The few parts of POSIX ustar a backup archive needs: regular files with
 * short names, written one after another and read back in order. Small and
 * ours, so that the archive is an ordinary `.tar.gz` (`tar tzf` lists it) and
 * no dependency is needed for it. The reader refuses what the writer never
 * makes (links, long names, a member above MAX_MEMBER) instead of guessing.
 */
import type { Writable } from 'node:stream'
import { once } from 'node:events'

const BLOCK = 512
const ZERO = Buffer.alloc(BLOCK * 2)

/** A member is at most this large: the reader holds one in memory (the writer's parts are far smaller). */
export const MAX_MEMBER = 64 * 1024 * 1024

export class TarFormatError extends Error {}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0'
}

function header(name: string, size: number, mtime: number): Buffer {
  if (Buffer.byteLength(name) > 100) throw new TarFormatError(`member name too long: ${name}`)
  const h = Buffer.alloc(BLOCK)
  h.write(name, 0, 100, 'utf8')
  h.write(octal(0o600, 8), 100, 'ascii')
  h.write(octal(0, 8), 108, 'ascii')
  h.write(octal(0, 8), 116, 'ascii')
  h.write(octal(size, 12), 124, 'ascii')
  h.write(octal(mtime, 12), 136, 'ascii')
  h.write('        ', 148, 'ascii')
  h.write('0', 156, 'ascii')
  h.write('ustar\0', 257, 'ascii')
  h.write('00', 263, 'ascii')
  let sum = 0
  for (const b of h) sum += b
  h.write(octal(sum, 7) + ' ', 148, 'ascii')
  return h
}

/** Writes members to `out`, waiting for it to drain so a slow reader holds back the producer. */
export class TarWriter {
  private readonly mtime = Math.floor(Date.now() / 1000)
  constructor(private readonly out: Writable) {}

  private async write(b: Buffer): Promise<void> {
    if (this.out.destroyed) throw new Error('the archive output was closed')
    if (this.out.write(b)) return
    // Drained, or closed (the reader went away): whichever comes first, the other listener is removed.
    const stop = new AbortController()
    try {
      await Promise.race([
        once(this.out, 'drain', { signal: stop.signal }),
        once(this.out, 'close', { signal: stop.signal }).then(() => {
          throw new Error('the archive output was closed')
        }),
      ])
    } finally {
      stop.abort()
    }
  }

  async add(name: string, data: Buffer): Promise<void> {
    await this.write(header(name, data.length, this.mtime))
    if (data.length) await this.write(data)
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK
    if (pad) await this.write(ZERO.subarray(0, pad))
  }

  /** The end-of-archive marker: two zero blocks. */
  async finish(): Promise<void> {
    await this.write(ZERO)
  }
}

/** Pulls exact byte counts out of a stream of chunks. */
class ChunkReader {
  private chunks: Buffer[] = []
  private buffered = 0
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Exactly n bytes, or null at a clean end (nothing buffered); a short read in between is a truncated archive. */
  async read(n: number): Promise<Buffer | null> {
    while (this.buffered < n) {
      const r = await this.source.next()
      if (r.done) {
        if (this.buffered === 0) return null
        throw new TarFormatError('the archive ends in the middle of a member (truncated)')
      }
      this.chunks.push(r.value)
      this.buffered += r.value.length
    }
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered)
    const out = all.subarray(0, n)
    const rest = all.subarray(n)
    this.chunks = rest.length ? [rest] : []
    this.buffered = rest.length
    return out
  }
}

const field = (h: Buffer, at: number, len: number) => h.toString('ascii', at, at + len).replace(/\0.*$/s, '').trim()

export interface TarMember {
  name: string
  data: Buffer
}

/** The members of an uncompressed tar stream, in order. Throws TarFormatError on anything malformed or truncated. */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarMember> {
  const r = new ChunkReader(source[Symbol.asyncIterator]())
  for (;;) {
    const h = await r.read(BLOCK)
    if (!h) throw new TarFormatError('the archive ends without its end marker (truncated)')
    if (h.every((b) => b === 0)) return
    let sum = 0
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]
    if (parseInt(field(h, 148, 8), 8) !== sum) throw new TarFormatError('a member header is damaged (checksum)')
    const type = String.fromCharCode(h[156])
    if (type !== '0' && type !== '\0') throw new TarFormatError('the archive holds a member that is not a regular file')
    const name = h.toString('utf8', 0, 100).replace(/\0.*$/s, '')
    const size = parseInt(field(h, 124, 12), 8)
    if (!Number.isSafeInteger(size) || size < 0 || size > MAX_MEMBER) throw new TarFormatError(`member ${name} has an impossible size`)
    const data = size ? await r.read(size) : Buffer.alloc(0)
    if (!data) throw new TarFormatError('the archive ends in the middle of a member (truncated)')
    const pad = (BLOCK - (size % BLOCK)) % BLOCK
    if (pad && !(await r.read(pad))) throw new TarFormatError('the archive ends in the middle of a member (truncated)')
    yield { name, data }
  }
}
