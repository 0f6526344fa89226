/**
 * JSON bodies, read from the request stream with the failures in the envelope:
 * malformed JSON → 422 BODY_MALFORMED_JSON (the contract's status for a
 * malformed input), too large → 413 BODY_TOO_LARGE, not JSON, JSON in a
 * charset other than UTF-8, or a compressed body → 415 BODY_UNSUPPORTED_TYPE.
 * Only routes that declare a body schema read one.
 *
 * Our own forty lines instead of koa-body: it brought formidable, zod and 130
 * modules for multipart and forms the API never accepts, a sixth of a start's
 * module loading.
 */
import type Koa from 'koa'
import { PortcullisError } from '../../sdk/index.js'
import { readBodyBytes } from '../../sdk/http-input.js'

const tooLarge = (limit: number) => new PortcullisError(413, 'BODY_TOO_LARGE', 'core:errors.body_too_large', { vars: { limit } })
const unsupported = (key: string, vars?: Record<string, unknown>) => new PortcullisError(415, 'BODY_UNSUPPORTED_TYPE', key, { vars })

/** The raw bytes, stopped at `limit` (sdk/http-input.ts). */
const readBytes = (req: Koa.Context['req'], limit: number) =>
  readBodyBytes(req, limit, { tooLarge: () => tooLarge(limit), incomplete: (e) => new PortcullisError(400, 'BODY_INCOMPLETE', 'core:errors.body_malformed_json', { cause: e }) })

export async function readJsonBody(ctx: Koa.Context, limit: number): Promise<unknown> {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== ''
  if (!hasBody) throw new PortcullisError(422, 'BODY_REQUIRED', 'core:errors.body_required')
  if (!ctx.is('application/json')) throw unsupported('core:errors.body_unsupported_type')
  // JSON is UTF-8 (RFC 8259 §8.1): a body declared as latin1 would be stored mangled, so any other declared charset is refused.
  const charset = ctx.request.charset.toLowerCase()
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8') throw unsupported('core:errors.body_unsupported_charset', { charset: charset.slice(0, 40) })
  // A compressed body would let a small request inflate past the limit; no client of this API needs one.
  const encoding = ctx.get('content-encoding').toLowerCase()
  if (encoding !== '' && encoding !== 'identity') throw unsupported('core:errors.body_unsupported_type')
  const declared = Number(ctx.get('content-length') || 0)
  if (declared > limit) throw tooLarge(limit)
  // A byte order mark is malformed JSON here (RFC 8259 §8.1: senders must not add one), as it was with koa-body.
  const text = (await readBytes(ctx.req, limit)).toString('utf8')
  // Whitespace only is no body; any JSON value parses (null is JSON, not malformed) and the schema says what is wrong with it.
  if (text.trim() === '') throw new PortcullisError(422, 'BODY_REQUIRED', 'core:errors.body_required')
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new PortcullisError(422, 'BODY_MALFORMED_JSON', 'core:errors.body_malformed_json')
  }
}

/** A non-JSON body of one of the route's media types (an OCSP request): the bytes as sent, at most `maxBytes`. */
export async function readRawBody(ctx: Koa.Context, decl: { mediaTypes: readonly string[]; maxBytes: number }): Promise<Buffer> {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== ''
  if (!hasBody) throw new PortcullisError(422, 'BODY_REQUIRED', 'core:errors.body_required')
  if (!ctx.is(...decl.mediaTypes)) throw unsupported('core:errors.body_unsupported_type')
  const encoding = ctx.get('content-encoding').toLowerCase()
  if (encoding !== '' && encoding !== 'identity') throw unsupported('core:errors.body_unsupported_type')
  if (Number(ctx.get('content-length') || 0) > decl.maxBytes) throw tooLarge(decl.maxBytes)
  return readBytes(ctx.req, decl.maxBytes)
}
