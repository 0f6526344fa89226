/** A real SMTP server on loopback for the tests: every message delivered to it is kept, decoded. */
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  to: string[]
  subject: string
  text: string
}

/** Headers and a single-part body, with quoted-printable or base64 undone. */
function decode(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const body = raw.slice(split + 4)
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? ''
  const encoding = header('Content-Transfer-Encoding').toLowerCase()
  let text = Buffer.from(body, 'latin1').toString('utf8')
  if (encoding === 'quoted-printable') {
    const bytes = Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1')
    text = bytes.toString('utf8')
  } else if (encoding === 'base64') text = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  return { subject: header('Subject'), text: text.replace(/\r\n/g, '\n') }
}

export interface TestSmtp {
  port: number
  messages: ReceivedMail[]
  /** The next message to `address` not taken before, waiting for it up to `ms`. */
  take(address: string, ms?: number): Promise<ReceivedMail>
  stop(): Promise<void>
}

export async function startSmtp(): Promise<TestSmtp> {
  const messages: ReceivedMail[] = []
  const taken = new Set<ReceivedMail>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), ...decode(Buffer.concat(chunks).toString('latin1')) })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    messages,
    async take(address, ms = 5000) {
      const deadline = Date.now() + ms
      for (;;) {
        const m = messages.find((x) => !taken.has(x) && x.to.includes(address.toLowerCase()))
        if (m) {
          taken.add(m)
          return m
        }
        if (Date.now() > deadline) throw new Error(`no mail for ${address} within ${ms} ms`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
