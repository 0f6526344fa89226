/**
 * A real SMTP server on loopback for the tests: every message delivered to it is kept, decoded
 * (single part or multipart/alternative; quoted-printable and base64 undone). Point the platform's
 * `mail.*` settings at `port` and read what it sent: `take` waits for the next mail to an address,
 * `links` and `code` pull out what a person would click or type.
 */
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  to: string[]
  subject: string
  /** The plain-text body (the text/plain part of a multipart mail). */
  text: string
  /** The text/html part, when the mail has one. */
  html: string | null
  /** The parts sent as attachments (Content-Disposition: attachment), decoded. */
  attachments: { filename: string; contentType: string; content: Buffer }[]
}

function headers(head: string): (name: string) => string {
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ')
  return (name) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(unfolded)?.[1]?.trim() ?? ''
}

function split(raw: string): { header: (name: string) => string; body: string } {
  const m = /\r?\n\r?\n/.exec(raw)
  const at = m ? m.index : raw.length
  return { header: headers(raw.slice(0, at)), body: m ? raw.slice(at + m[0].length) : '' }
}

function bodyText(body: string, encoding: string): string {
  const e = encoding.toLowerCase()
  if (e === 'quoted-printable') return Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8')
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  return Buffer.from(body, 'latin1').toString('utf8')
}

/** The message's subject, its text and its HTML (the parts of a multipart one, nested or not). */
function decode(raw: string): Omit<ReceivedMail, 'to'> {
  const { header, body } = split(raw)
  const parts: { type: string; text: string }[] = []
  const attachments: ReceivedMail['attachments'] = []
  const walk = (h: (name: string) => string, b: string) => {
    const type = h('Content-Type').toLowerCase()
    const boundary = /boundary="?([^";]+)"?/i.exec(h('Content-Type'))?.[1]
    if (type.startsWith('multipart/') && boundary) {
      for (const chunk of b.split(`--${boundary}`).slice(1)) {
        if (chunk.startsWith('--')) break
        const p = split(chunk.replace(/^\r?\n/, ''))
        walk(p.header, p.body.replace(/\r?\n$/, ''))
      }
    } else if (/^attachment/i.test(h('Content-Disposition'))) {
      const filename = /filename="?([^";]+)"?/i.exec(h('Content-Disposition'))?.[1] ?? ''
      const content = h('Content-Transfer-Encoding').toLowerCase() === 'base64' ? Buffer.from(b.replace(/\s+/g, ''), 'base64') : Buffer.from(b, 'latin1')
      attachments.push({ filename, contentType: type.split(';')[0], content })
    } else parts.push({ type: type || 'text/plain', text: bodyText(b, h('Content-Transfer-Encoding')).replace(/\r\n/g, '\n') })
  }
  // The line end before SMTP's closing dot belongs to the transport, not to the text.
  walk(header, body.replace(/\r?\n$/, ''))
  const text = parts.find((p) => p.type.startsWith('text/plain'))?.text ?? ''
  const html = parts.find((p) => p.type.startsWith('text/html'))?.text ?? null
  return { subject: header('Subject'), text, html, attachments }
}

/** The http(s) links of a mail, in order (its text, else its HTML's href values, entities undone). */
export function links(mail: ReceivedMail): string[] {
  const fromText = mail.text.match(/https?:\/\/[^\s<>"')]+/g) ?? []
  if (fromText.length > 0) return fromText
  return [...(mail.html ?? '').matchAll(/href="(https?:\/\/[^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'))
}

/** The first code of `digits` digits standing alone in the mail's text (a one-time code). */
export function code(mail: ReceivedMail, digits = 6): string {
  const m = new RegExp(`(?<![\\d-])(\\d{${digits}})(?![\\d-])`).exec(mail.text)
  if (!m) throw new Error(`no ${digits}-digit code in the mail "${mail.subject}":\n${mail.text}`)
  return m[1]
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
