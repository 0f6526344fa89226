/**
 * What a guest types, checked the same way for the pages and the JSON API: a refusal is the 422
 * envelope at the field. Control characters never reach a row, a page or a mail.
 */
import { CommonErrors } from '../../../sdk/index.js'
import type { PortalRow } from '../tables.js'

const EMAIL = /^[^\s@<>()",;:\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$/
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

function text(value: unknown, field: string, max: number, required: boolean): string | null {
  const v = typeof value === 'string' ? value.trim() : ''
  if (v === '') {
    if (required) throw CommonErrors.validation({ field })
    return null
  }
  if (v.length > max || CONTROL.test(v)) throw CommonErrors.validation({ field })
  return v
}

export const requiredText = (value: unknown, field: string, max: number): string => text(value, field, max, true)!

export function email(value: unknown, field: string): string {
  const v = requiredText(value, field, 254)
  if (!EMAIL.test(v)) throw CommonErrors.validation({ field })
  return v
}

/** The portal's extra self-registration fields: required ones present, unknown ones refused. */
export function extraFields(portal: PortalRow, given: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  const known = new Set(portal.self_registration_fields.map((f) => f.name))
  for (const k of Object.keys(given)) if (!known.has(k)) throw CommonErrors.validation({ field: `fields.${k}` })
  for (const f of portal.self_registration_fields) {
    const v = text(given[f.name], `fields.${f.name}`, 200, f.required)
    if (v !== null) out[f.name] = v
  }
  return out
}

export interface GuestDetails {
  name: string
  email: string
  fields: Record<string, string>
}

export function guestDetails(portal: PortalRow, b: { name?: unknown; email?: unknown; fields?: unknown }): GuestDetails {
  const fields = typeof b.fields === 'object' && b.fields !== null && !Array.isArray(b.fields) ? (b.fields as Record<string, unknown>) : {}
  return { name: requiredText(b.name, 'name', 100), email: email(b.email, 'email'), fields: extraFields(portal, fields) }
}
