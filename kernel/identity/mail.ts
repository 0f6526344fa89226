/** Mail through a real SMTP client (nodemailer), configured by the `mail.*` settings at send time. */
import { PortcullisError, type MailService, type SettingsService } from '../../sdk/index.js'
import { mailFrom, smtpHost, smtpPassword, smtpPort, smtpSecure, smtpUser } from './settings.js'

export function createMail(settings: SettingsService): MailService {
  return {
    async send(m) {
      const host = await settings.get(smtpHost)
      if (!host) throw new PortcullisError(503, 'MAIL_NOT_CONFIGURED', 'core:errors.mail_not_configured')
      const tls = await settings.get(smtpSecure)
      const user = await settings.get(smtpUser)
      // Loaded at the first mail, not at every start (39 modules a server without mail never needs).
      const { default: nodemailer } = await import('nodemailer')
      const transport = nodemailer.createTransport({
        host,
        port: await settings.get(smtpPort),
        secure: tls === 'tls',
        ignoreTLS: tls === 'none',
        requireTLS: tls === 'starttls',
        auth: user ? { user, pass: (await settings.get(smtpPassword)) ?? '' } : undefined,
        connectionTimeout: 10_000,
      })
      try {
        await transport.sendMail({ from: await settings.get(mailFrom), to: m.to, subject: m.subject, text: m.text, html: m.html, attachments: m.attachments })
      } finally {
        transport.close()
      }
    },
  }
}
