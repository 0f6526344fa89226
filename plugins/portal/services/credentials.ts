/**
 * An event's accounts as the organiser prints or imports them: CSV, or an HTML
 * page of cards to cut out. Every value is escaped (the event's name is typed
 * by a person and may hold anything), and CSV cells that a spreadsheet would
 * run as a formula are quoted as text.
 */
import type { GuestBulkResponse } from '../schemas/guests.js'

export const escapeHtml = (v: string) => v.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/** RFC 4180 cell; a leading = + - @ (or tab/CR) becomes text with a `'` (CSV injection). */
export function csvCell(v: string): string {
  const text = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function credentialsCsv(b: GuestBulkResponse, portalPath: string): string {
  const lines = [['username', 'password', 'event', 'valid_from', 'valid_until', 'portal'].join(',')]
  for (const a of b.accounts) lines.push([a.username, a.password, b.event, b.valid_from, b.valid_until, portalPath].map(csvCell).join(','))
  return lines.join('\r\n') + '\r\n'
}

const TEXT = {
  en: { title: 'Guest Wi-Fi accounts', user: 'Username', password: 'Password', valid: 'Valid', to: 'to', portal: 'Sign in at' },
  ru: { title: 'Гостевые учётные записи Wi-Fi', user: 'Имя пользователя', password: 'Пароль', valid: 'Действует', to: 'до', portal: 'Вход' },
} as const

/** A printable page: one card per account. No script; the style block carries `nonce` (the answer's CSP allows that one alone). */
export function credentialsHtml(b: GuestBulkResponse, portalPath: string, lang: string, nonce: string): string {
  const t = lang === 'ru' ? TEXT.ru : TEXT.en
  const cards = b.accounts
    .map(
      (a) =>
        `<section class="card"><h2>${escapeHtml(b.event)}</h2><dl><dt>${t.user}</dt><dd><code>${escapeHtml(a.username)}</code></dd>` +
        `<dt>${t.password}</dt><dd><code>${escapeHtml(a.password)}</code></dd>` +
        `<dt>${t.valid}</dt><dd>${escapeHtml(b.valid_from)} ${t.to} ${escapeHtml(b.valid_until)}</dd>` +
        `<dt>${t.portal}</dt><dd>${escapeHtml(portalPath)}</dd></dl></section>`,
    )
    .join('\n')
  return (
    `<!doctype html><html lang="${lang === 'ru' ? 'ru' : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${t.title}: ${escapeHtml(b.event)}</title><style nonce="${nonce}">body{font-family:sans-serif}.card{border:1px dashed #555;padding:1em;margin:.5em;display:inline-block;min-width:16em;break-inside:avoid}code{font-size:1.2em}</style>` +
    `</head><body><main><h1>${t.title}: ${escapeHtml(b.event)}</h1>\n${cards}\n</main></body></html>`
  )
}
