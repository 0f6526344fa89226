/** A logger whose JSON lines a test can read (a test that asserts what the server says in its log). */
import { Writable } from 'node:stream'
import { pino } from 'pino'
import type { Logger } from '../../sdk/index.js'

export function capturedLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>)
      done()
    },
  })
  return { log: pino({ level: 'info' }, sink) as unknown as Logger, lines }
}
