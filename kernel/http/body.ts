/**
 * JSON bodies through koa-body, with its failures mapped to the envelope:
 * malformed JSON → 422 BODY_MALFORMED_JSON (the contract's status for a
 * malformed input), too large → 413 BODY_TOO_LARGE, not JSON, or JSON in a
 * charset other than UTF-8 → 415 BODY_UNSUPPORTED_TYPE.
 * Only routes that declare a body schema read one.
 */
import type Koa from 'koa'
import { koaBody } from 'koa-body'
import { PortcullisError } from '../../sdk/index.js'

const parsers = new Map<number, Koa.Middleware>()

function parserFor(limit: number): Koa.Middleware {
  let p = parsers.get(limit)
  if (!p) {
    p = koaBody({
      json: true,
      // Any JSON value parses; the schema then says what is wrong with it (null is JSON, not malformed).
      jsonStrict: false,
      jsonLimit: limit,
      urlencoded: false,
      text: false,
      multipart: false,
      parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
      onError(err: Error & { type?: string; status?: number }) {
        if (err.type === 'entity.too.large' || err.status === 413) {
          throw new PortcullisError(413, 'BODY_TOO_LARGE', 'core:errors.body_too_large', { vars: { limit } })
        }
        throw new PortcullisError(422, 'BODY_MALFORMED_JSON', 'core:errors.body_malformed_json')
      },
    }) as unknown as Koa.Middleware
    parsers.set(limit, p)
  }
  return p
}

export async function readJsonBody(ctx: Koa.Context, limit: number): Promise<unknown> {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== ''
  if (!hasBody) throw new PortcullisError(422, 'BODY_REQUIRED', 'core:errors.body_required')
  if (!ctx.is('application/json')) throw new PortcullisError(415, 'BODY_UNSUPPORTED_TYPE', 'core:errors.body_unsupported_type')
  // JSON is UTF-8 (RFC 8259 §8.1) and the parser decodes it so whatever the header says: a body
  // declared as latin1 would be stored mangled, so any other declared charset is refused.
  const charset = ctx.request.charset.toLowerCase()
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8') {
    throw new PortcullisError(415, 'BODY_UNSUPPORTED_TYPE', 'core:errors.body_unsupported_charset', { vars: { charset: charset.slice(0, 40) } })
  }
  const declared = Number(ctx.get('content-length') || 0)
  if (declared > limit) throw new PortcullisError(413, 'BODY_TOO_LARGE', 'core:errors.body_too_large', { vars: { limit } })
  await parserFor(limit)(ctx, async () => undefined)
  return (ctx.request as unknown as { body: unknown }).body
}
