/**
 * Raw HTTP/1.x over a socket, for requests fetch cannot send: no Host, two
 * Host headers, a malformed request line, an unknown Expect. The request text
 * is sent as written; the answer is read until the server closes.
 */
import net from 'node:net'

export interface RawResponse {
  status: number
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>
  body: string
  /** The whole answer as received. */
  text: string
}

export async function rawRequest(url: string, request: string, timeoutMs = 5000): Promise<RawResponse> {
  const { hostname, port } = new URL(url)
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) })
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString()}`))
    }, timeoutMs)
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', (e) => (chunks.length ? undefined : reject(e)))
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(Buffer.concat(chunks).toString('utf8'))
    })
    socket.write(request)
  })
  const split = text.indexOf('\r\n\r\n')
  if (split < 0) throw new Error(`not an HTTP answer: ${JSON.stringify(text)}`)
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n')
  const headers: Record<string, string> = {}
  for (const l of lines) {
    const i = l.indexOf(':')
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim()
  }
  let body = text.slice(split + 4)
  // Chunked answers (koa streams nothing here, but be safe): join the chunks.
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    let out = ''
    for (let rest = body; ; ) {
      const nl = rest.indexOf('\r\n')
      const size = parseInt(rest.slice(0, nl), 16)
      if (!size) break
      out += rest.slice(nl + 2, nl + 2 + size)
      rest = rest.slice(nl + 2 + size + 2)
    }
    body = out
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, text }
}
