/**
 * One Ajv for the push service: bodies and headers validated as sent (no coercion), path values
 * coerced from strings. The first error becomes a 422 at its field (`push.endpoint`), as the core's
 * validator does (kernel/http/validation.ts, copied in spirit, not imported).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsPkg from 'ajv-formats'
import type { TSchema } from 'typebox'
import { PushError } from './errors.js'
import { toFieldPath } from '../sdk/http-input.js'

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv

function make(coerce: boolean): Ajv {
  // discriminator: the push address is one of several kinds; Ajv then checks only the branch its `kind` names,
  // so the error points into that branch (push.endpoint) instead of "must match a schema in oneOf".
  const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, coerceTypes: coerce, allowUnionTypes: true, discriminator: true })
  addFormats(ajv)
  // ajv-formats also admits `urn:uuid:…`; the core's database reads only the plain form.
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
  return ajv
}

const strictAjv = make(false)
const coercingAjv = make(true)

export const compileData = (schema: TSchema): ValidateFunction => strictAjv.compile(schema)
export const compileParams = (schema: TSchema): ValidateFunction => coercingAjv.compile(schema)


/** The 422 for Ajv's first error; `prefix` names where the value came from (a header's name for headers). */
export function toError(errors: ErrorObject[] | null | undefined, prefix?: string): PushError {
  const e = errors?.find((x) => x.keyword !== 'anyOf' && x.keyword !== 'oneOf') ?? errors?.[0]
  const at = (extra?: string) => {
    const f = toFieldPath(e?.instancePath ?? '', extra)
    return prefix ? (f ? `${prefix}.${f}` : prefix) : f
  }
  if (!e) return new PushError(422, 'VALIDATION_FAILED', { field: '(value)', message: 'is invalid' }, prefix ?? null)
  const p = e.params as Record<string, unknown>
  if (e.keyword === 'additionalProperties') {
    const field = at(String(p.additionalProperty))
    return new PushError(422, 'UNKNOWN_FIELD', { field: field ?? '' }, field)
  }
  if (e.keyword === 'required') {
    const field = at(String(p.missingProperty))
    return new PushError(422, 'FIELD_REQUIRED', { field: field ?? '' }, field)
  }
  const field = at()
  return new PushError(422, 'VALIDATION_FAILED', { field: field ?? '(value)', message: e.message ?? 'is invalid' }, field)
}
