/** How the pages answer: HTML with their own Content-Security-Policy, form bodies read as the browser sends them. */
import { reply, type Reply } from '../../../sdk/index.js'
import type { Html } from './html.js'
import { PAGE_CSP } from './layout.js'

export const HTML_TYPE = 'text/html; charset=utf-8'

export const htmlReply = (status: number, page: Html, headers: Record<string, string> = {}): Reply =>
  reply({ status, body: page.text, contentType: HTML_TYPE, headers: { 'Content-Security-Policy': PAGE_CSP, ...headers } })

/** After a form's step: back to the portal's page, which shows where the session is now (no resubmission on reload). */
export const seeOther = (location: string, headers: Record<string, string> = {}): Reply => reply({ status: 303, headers: { Location: location, ...headers } })

/** An `application/x-www-form-urlencoded` body; the first value of each name. */
export function formFields(raw: Buffer | null): Record<string, string> {
  const out: Record<string, string> = {}
  if (!raw) return out
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) if (!Object.hasOwn(out, k)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true })
  return out
}

export const FORM_BODY = { mediaTypes: ['application/x-www-form-urlencoded'], maxBytes: 16_384, description: 'The form, URL-encoded, as a browser sends it.' } as const
