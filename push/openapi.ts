/**
 * The push service's OpenAPI 3.1 document, built from its route table: the schemas that validate
 * the requests are the ones documented. A schema with a `title` becomes a component. The mobile
 * app's developers read it at GET /openapi.json.
 */
import type { PushRoute } from './http.js'
import { SECURITY_HEADERS } from './http.js'
import type { RateLimitOptions } from './rate-limit.js'
import { ErrorBody, RateLimitBody } from './schemas.js'
import { PUSH_SERVICE_VERSION } from './version.js'

type Json = Record<string, unknown>

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content', 401: 'Not authenticated (device signature, enrollment token or channel signature)',
  404: 'Not found', 405: 'Method not allowed', 409: 'Conflict with the current state', 413: 'Body too large', 415: 'Body is not JSON', 422: 'Validation failed',
  429: 'Rate limit exceeded', 500: 'Internal error', 503: 'The platform cannot be reached (PUSH_CORE_UNAVAILABLE), or it is unavailable itself',
}

const EVERY_ANSWER: Record<string, Json> = {
  'X-Push-Service-Version': { description: "The push service's contract version.", required: true, schema: { type: 'string', const: PUSH_SERVICE_VERSION } },
  ...Object.fromEntries(Object.entries(SECURITY_HEADERS).map(([name, value]) => [name, { description: 'Security header, on every answer.', required: true, schema: { type: 'string', const: value } }])),
}

export function buildOpenApi(routes: PushRoute[], limit: RateLimitOptions): Json {
  const schemas: Record<string, Json> = {}
  const lift = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map(lift)
    if (!schema || typeof schema !== 'object') return schema
    const s = schema as Json
    const copy: Json = {}
    for (const [k, v] of Object.entries(s)) copy[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as Json).map(([pk, pv]) => [pk, lift(pv)])) : lift(v)
    // OpenAPI tools map a discriminator's values to the branches by `mapping` (Ajv refuses the keyword, so it is added here).
    const d = s.discriminator as { propertyName: string } | undefined
    if (d && Array.isArray(s.oneOf) && Array.isArray(copy.oneOf)) {
      const values = (s.oneOf as Json[]).map((b) => ((b.properties as Record<string, Json>)[d.propertyName] as Json).const)
      copy.discriminator = { ...d, mapping: Object.fromEntries(values.map((v, i) => [String(v), ((copy.oneOf as Json[])[i] as Json).$ref])) }
    }
    const title = typeof s.title === 'string' && /^[A-Z][A-Za-z0-9]+$/.test(s.title) ? s.title : null
    if (!title) return copy
    if (schemas[title] && JSON.stringify(schemas[title]) !== JSON.stringify(copy)) throw new Error(`two different schemas are both titled ${title}`)
    schemas[title] = copy
    return { $ref: `#/components/schemas/${title}` }
  }
  lift(ErrorBody)
  lift(RateLimitBody)
  const headers = (own: Json = {}) => ({ ...Object.fromEntries(Object.keys(EVERY_ANSWER).map((h) => [h, { $ref: `#/components/headers/${h}` }])), ...own })
  const retryAfter = (required: boolean) => ({ 'Retry-After': { description: 'Seconds to wait before retrying.', ...(required ? { required: true } : {}), schema: { type: 'integer', minimum: 0 } } })
  const errorResponse = (code: number) => ({
    description: STATUS_TEXT[code] ?? String(code),
    headers: headers(code === 503 ? retryAfter(false) : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
  })

  const paths: Record<string, Json> = {}
  for (const route of routes) {
    const parameters: Json[] = []
    for (const [where, schema] of [['path', route.params], ['header', route.headers]] as const) {
      const s = schema as { properties?: Record<string, Json>; required?: string[] } | undefined
      for (const [name, ps] of Object.entries(s?.properties ?? {})) {
        const ls = lift(ps) as Json
        parameters.push({ name: where === 'header' ? name.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase()) : name, in: where, required: where === 'path' || (s?.required ?? []).includes(name), schema: ls, ...(ls.description ? { description: ls.description } : {}) })
      }
    }
    const responses: Record<string, Json> = {}
    for (const [code, schema] of Object.entries(route.responses)) {
      const c = Number(code)
      if (c >= 400) responses[code] = errorResponse(c)
      else if (schema === null) responses[code] = { description: STATUS_TEXT[c] ?? code, headers: headers() }
      else responses[code] = { description: STATUS_TEXT[c] ?? code, headers: headers(), content: { 'application/json': { schema: lift(schema) } } }
    }
    const relayed = route.auth === 'device' || route.auth === 'enrollment'
    const errors = [
      ...(route.params || route.headers || route.body ? [422] : []),
      ...(route.body ? [413, 415] : []),
      ...(route.auth === 'channel' || route.auth === 'device' || route.auth === 'enrollment' ? [401] : []),
      500,
      ...(relayed ? [503] : []),
    ]
    for (const c of errors) if (!responses[c]) responses[c] = errorResponse(c)
    if (route.limited) {
      responses['429'] = {
        description: `${STATUS_TEXT[429]}: ${limit.max} per ${limit.windowSeconds} s per client IP`,
        headers: headers(retryAfter(true)),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/RateLimitBody' } } },
      }
    }
    const op: Json = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      security: route.auth === 'device' ? [{ device: [] }] : route.auth === 'channel' ? [{ channel: [] }] : [],
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: lift(route.body) } } } } : {}),
      responses,
    }
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method.toLowerCase()]: op }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portcullis push-MFA service',
      version: PUSH_SERVICE_VERSION,
      description:
        'The contract between the Portcullis authenticator app and the push service (tag mobile), and the call the platform makes to it (tag platform). The version changes only when this contract does. Errors answer `{detail, code, field}`; 429 answers `{detail, retry_after}`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    tags: [
      { name: 'mobile', description: 'What the app calls.' },
      { name: 'platform', description: 'What the Portcullis platform calls over the signed channel.' },
      { name: 'service', description: 'Liveness and this document.' },
    ],
    paths,
    components: {
      schemas,
      headers: EVERY_ANSWER,
      securitySchemes: {
        device: { type: 'apiKey', in: 'header', name: 'X-Device-Signature', description: 'The device key (P-256 or Ed25519, enrolled) signs each request; with X-Device-Id and X-Device-Timestamp.' },
        channel: { type: 'apiKey', in: 'header', name: 'x-portcullis-signature', description: 'HMAC-SHA256 with the key shared by the platform and this service; with x-portcullis-timestamp and x-portcullis-nonce.' },
      },
    },
  }
}
