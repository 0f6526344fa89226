/**
 * A request body's bytes, stopped at a limit counted as they arrive (a chunked body has no length to
 * trust). Shared by the core's HTTP layer and the push service, which imports nothing else of the
 * platform but the signed channel and this; each answers its own errors (the two factories).
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
