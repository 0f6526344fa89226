/**
 * The SMTP kit itself (test/kit/smtp.ts): what the platform's mailer (nodemailer) sends, plain or
 * with an HTML part, quoted-printable or base64, arrives decoded; `take` waits for the next mail to
 * an address and gives each once; `links` and `code` find what a person would click or type.
 */
import { expect } from 'chai'
import nodemailer from 'nodemailer'
import { code, links, startSmtp, type TestSmtp } from './smtp.js'

describe('test kit: the SMTP listener', function () {
  let smtp: TestSmtp
  before(async () => (smtp = await startSmtp()))
  after(async () => smtp?.stop())

  const send = (m: { to: string; subject: string; text: string; html?: string; textEncoding?: 'base64' | 'quoted-printable' }) =>
    nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true }).sendMail({ from: 'portal@example.test', ...m })

  it('waits for the next mail to an address, gives each once, and times out when none comes', async () => {
    setTimeout(() => void send({ to: 'Guest@Example.test', subject: 'Your code', text: 'Your code is 042917. It expires in 10 minutes.' }), 100)
    const mail = await smtp.take('guest@example.test')
    expect(mail.subject).to.equal('Your code')
    expect(code(mail)).to.equal('042917')
    let err = ''
    await smtp.take('guest@example.test', 200).catch((e: Error) => (err = e.message))
    expect(err).to.equal('no mail for guest@example.test within 200 ms')
  })

  it('decodes quoted-printable and base64 bodies and the parts of a multipart mail; links from the text, else the HTML', async () => {
    const long = `Привет, ${'x'.repeat(90)} approve: https://nac.example.test/api/v1/captive-portal/sponsor/callback?token=abc_DEF-123&lang=ru`
    await send({ to: 'sponsor@example.test', subject: 'Guest asks', text: long, textEncoding: 'quoted-printable' })
    const qp = await smtp.take('sponsor@example.test')
    expect(qp.text).to.equal(long)
    expect(links(qp)).to.deep.equal(['https://nac.example.test/api/v1/captive-portal/sponsor/callback?token=abc_DEF-123&lang=ru'])

    await send({ to: 'sponsor@example.test', subject: 'Both', text: 'Код 123456, не 1234567', html: '<p><a href="https://nac.example.test/x?a=1&amp;b=2">open</a></p>', textEncoding: 'base64' })
    const multi = await smtp.take('sponsor@example.test')
    expect(multi.text).to.equal('Код 123456, не 1234567')
    expect(multi.html).to.include('<a href="https://nac.example.test/x?a=1&amp;b=2">')
    expect(code(multi)).to.equal('123456')
    expect(links({ ...multi, text: 'no link' })).to.deep.equal(['https://nac.example.test/x?a=1&b=2'])
    expect(() => code({ ...multi, text: 'none here: 12345' })).to.throw(/no 6-digit code/)
  })
})
