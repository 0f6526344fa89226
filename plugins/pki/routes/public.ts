/**
 * What relying parties fetch without credentials: each CA's current CRL
 * (DER or PEM, cacheable and revalidated by ETag) and the OCSP responder
 * (RFC 6960: POST of a DER request, or GET of its base64 per appendix A.1).
 * No rate limit: both are read-only and meant to sit behind a cache; the
 * CRL is served as stored, never made on request.
 */
import { CommonErrors, defineRoute, ErrorBody, PUBLIC, reply, Type } from '../../../sdk/index.js'
import { toPem } from '../services/der.js'
import type { PkiContext } from './context.js'

const CRL_FILE = Type.Object(
  { crl_file: Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\.(crl|pem)$', description: '`{ca_id}.crl` (DER) or `{ca_id}.pem`.' }) },
  { additionalProperties: false },
)

/** At most five minutes in a cache, and never past nextUpdate: a revocation reaches caches within that. */
export const CRL_MAX_AGE_SECONDS = 300

const OCSP_RESPONSE = 'application/ocsp-response'
/** A response may carry the asker's nonce: no cache keeps it. */
const OCSP_DOWNLOAD = { mediaTypes: [OCSP_RESPONSE], headers: { 'Cache-Control': { description: '`no-store`.', schema: Type.Literal('no-store'), required: true } } }

/** RFC 7232 3.2: any listed tag (weak or strong) or `*` matches. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some((t) => {
    const v = t.trim()
    return v === '*' || v.replace(/^W\//, '') === etag
  })
}

export function publicRoutes(c: PkiContext) {
  const ocspAnswer = async (der: Buffer) => reply({ status: 200, body: await c.ocsp.respond(der), contentType: OCSP_RESPONSE, headers: { 'Cache-Control': 'no-store' } })
  return [
    defineRoute({
      method: 'GET',
      path: '/public/crl/{crl_file}',
      permission: PUBLIC,
      summary: 'A CA\'s current CRL',
      description:
        '`/api/v1/public/crl/{ca_id}.crl` answers the DER CRL (application/pkix-crl), `.pem` the same in PEM. No credentials. The CRL is made at every revocation and before its nextUpdate; `Cache-Control` allows five minutes (less near nextUpdate), `ETag` (the CRL number and its thisUpdate) and `Last-Modified` (its thisUpdate) let a client revalidate: `If-None-Match` with the current tag answers 304.',
      tags: ['pki'],
      download: {
        mediaTypes: ['application/pkix-crl', 'application/x-pem-file'],
        headers: {
          ETag: { description: 'The CRL number and its thisUpdate.', schema: Type.String(), required: true },
          'Last-Modified': { description: 'The CRL\'s thisUpdate.', schema: Type.String(), required: true },
          'Cache-Control': { description: '`public, max-age=N, must-revalidate`, N at most 300 and never past nextUpdate.', schema: Type.String(), required: true },
        },
      },
      schema: { params: CRL_FILE, response: { 200: 'file', 304: null, 404: ErrorBody } },
      handler: async (req) => {
        const [id, format] = req.params.crl_file.toLowerCase().split('.')
        const headersOf = (row: { crl_number: number; crl_this_update: Date; crl_next_update: Date | null }) => {
          const untilNext = Math.floor(((row.crl_next_update?.getTime() ?? 0) - Date.now()) / 1000)
          return {
            // The CRL's number (one per CRL of a CA) and thisUpdate: a revalidation reads no CRL bytes.
            ETag: `"${row.crl_number}-${row.crl_this_update.getTime() / 1000}-${format}"`,
            'Last-Modified': row.crl_this_update.toUTCString(),
            'Cache-Control': `public, max-age=${Math.max(0, Math.min(CRL_MAX_AGE_SECONDS, untilNext))}, must-revalidate`,
          }
        }
        const current = c.knex('pki_cas').where({ id }).whereNotNull('crl_der').whereNotNull('crl_this_update')
        const head = await current.clone().first('crl_number', 'crl_this_update', 'crl_next_update')
        if (!head) throw CommonErrors.notFound({ field: 'crl_file' })
        const cached = headersOf({ ...head, crl_this_update: head.crl_this_update! })
        if (matches(req.headers['if-none-match'], cached.ETag)) return reply({ status: 304, headers: cached })
        // The bytes and their headers from one row: a revocation in between cannot pair a new CRL with an old tag.
        const row = await current.clone().first('crl_number', 'crl_this_update', 'crl_next_update', 'crl_der')
        if (!row) throw CommonErrors.notFound({ field: 'crl_file' })
        const headers = headersOf({ ...row, crl_this_update: row.crl_this_update! })
        const der = row.crl_der!
        return format === 'pem'
          ? reply({ status: 200, body: toPem(der, 'X509 CRL'), contentType: 'application/x-pem-file', headers })
          : reply({ status: 200, body: der, contentType: 'application/pkix-crl', headers })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/public/ocsp',
      permission: PUBLIC,
      summary: 'OCSP responder (RFC 6960)',
      description:
        'An OCSPRequest (DER, application/ocsp-request, at most 8 KiB) for certificates of one of our CAs, named by CertID (SHA-1 or SHA-2 hashes). Answers an OCSPResponse signed by that CA: `good`, `revoked` (time and reason) or `unknown` for each; a nonce in the request is echoed. An unreadable request answers status malformedRequest, one naming no CA of ours unauthorized (both with HTTP 200, as RFC 6960 wants).',
      tags: ['pki'],
      rawBody: { mediaTypes: ['application/ocsp-request'], maxBytes: 8192, description: 'DER OCSPRequest.' },
      download: OCSP_DOWNLOAD,
      schema: { response: { 200: 'file' } },
      handler: async (req) => ocspAnswer(req.rawBody!),
    }),
    defineRoute({
      method: 'GET',
      path: '/public/ocsp/{request}',
      permission: PUBLIC,
      summary: 'OCSP responder, GET form (RFC 6960 A.1)',
      description: 'The same as the POST, the request being the URL-encoded base64 of the DER OCSPRequest.',
      tags: ['pki'],
      download: OCSP_DOWNLOAD,
      schema: {
        params: Type.Object({ request: Type.String({ minLength: 4, maxLength: 11_000, pattern: '^[A-Za-z0-9+/=_-]+$' }) }, { additionalProperties: false }),
        response: { 200: 'file' },
      },
      handler: async (req) => ocspAnswer(Buffer.from(req.params.request, 'base64')),
    }),
  ]
}
