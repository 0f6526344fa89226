/** The kernel's identity and mail settings. */
import { defineSetting, directorySettingRefs, identitySettingRefs, Nullable, Type } from '../../sdk/index.js'

export const sessionTtl = defineSetting(
  'identity.session_ttl_seconds',
  Type.Integer({ minimum: 300, maximum: 7 * 86400 }),
  8 * 3600,
  'Lifetime of a session token, in seconds (default 8 hours: one working shift).',
  { security: true },
)
// Defined in the SDK so that plugins sending mail build links from the same value.
export const publicUrl = identitySettingRefs.publicUrl
export const lockoutThreshold = identitySettingRefs.lockoutThreshold
export const lockoutSeconds = identitySettingRefs.lockoutSeconds
export const smtpHost = defineSetting('mail.smtp_host', Nullable(Type.String({ maxLength: 255 })), null, 'SMTP server host; null disables mail.', { security: true })
export const smtpPort = defineSetting('mail.smtp_port', Type.Integer({ minimum: 1, maximum: 65535 }), 587, 'SMTP server port.', { security: true })
export const smtpSecure = defineSetting('mail.smtp_tls', Type.Union([Type.Literal('starttls'), Type.Literal('tls'), Type.Literal('none')]), 'starttls', 'starttls (port 587), tls (465) or none (a local relay).', { security: true })
export const smtpUser = defineSetting('mail.smtp_user', Nullable(Type.String({ maxLength: 255 })), null, 'SMTP user name, when the server wants authentication.', { security: true })
export const smtpPassword = defineSetting('mail.smtp_password', Nullable(Type.String({ maxLength: 255 })), null, 'SMTP password (write-only, sealed at rest).', { secret: true })
export const mailFrom = defineSetting('mail.from', Type.String({ maxLength: 254, minLength: 3 }), 'portcullis@localhost', 'Sender address of platform mail.', { security: true })

export const identitySettings = [sessionTtl, publicUrl, lockoutThreshold, lockoutSeconds, smtpHost, smtpPort, smtpSecure, smtpUser, smtpPassword, mailFrom, ...Object.values(directorySettingRefs)]
