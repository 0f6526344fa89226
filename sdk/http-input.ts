/**
 * Reading a request's input, shared by the core's HTTP layer and the push service (which imports
 * nothing else of the platform but the signed channel and this): the body's bytes, stopped at a
 * limit counted as they arrive (a chunked body has no length to trust), each side answering its own
 * errors (the two factories); and the field a validation error names.
 */
import type { IncomingMessage } from 'node:http'

export function readBodyBytes(req: IncomingMessage, limit: number, errors: { tooLarge: () => Error; incomplete: (cause: Error) => Error }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (c: Buffer) => {
      size += c.length
      if (size > limit) {
        cleanup()
        // Stop reading: the answer is sent and the connection closed, the rest is never buffered.
        req.pause()
        reject(errors.tooLarge())
        return
      }
      chunks.push(c)
    }
    const onEnd = () => {
      cleanup()
      resolve(Buffer.concat(chunks, size))
    }
    // A client that goes away mid-body: settled, not left waiting for an end that never comes.
    const onError = (e: Error) => {
      cleanup()
      reject(errors.incomplete(e))
    }
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('aborted', onError)
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('aborted', onError)
  })
}

/** A JSON pointer of a validation error as the envelope's `field`: `/commands/0/action` → `commands[0].action`. */
export function toFieldPath(instancePath: string, extra?: string): string | null {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (extra !== undefined) parts.push(extra)
  let out = ''
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p
  return out || null
}
