/**
 * OpenAPI 3.1 from the route table: the same schemas that validate requests.
 * A schema with a `title` becomes a component and is referenced by `$ref`.
 * Built only when documentation is enabled.
 */
import { AUTHENTICATED, PUBLIC, ErrorBody, RateLimitBody, type RouteDefinition, type TSchema } from '../../sdk/index.js'
import type { OwnedRoute } from '../plugins/registry.js'
import { fullPath, successStatus } from './mount.js'
import { describeLimit, limitsOf } from './rate-limit.js'
import { SECURITY_HEADERS } from './transport.js'
import { CONSOLE_HEADER_NAME, endsConsoleSession, SESSION_COOKIE } from '../security/session-cookie.js'

type Json = Record<string, unknown>

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content', 400: 'Bad request', 401: 'Not authenticated, or a token of the wrong purpose',
  403: 'Authenticated but lacking the permission', 404: 'Not found', 409: 'Conflict with the current state', 413: 'Body too large',
  415: 'Body is not JSON', 422: 'Validation failed (HTTPValidationError)', 429: 'Rate limit exceeded', 500: 'Internal error', 503: 'Unavailable (database outage, master key missing, or degraded readiness)',
  431: 'The request line and headers exceed 16 KiB (a path or query too long)',
}

/**
 * Headers the conventions put on every answer (conventions.ts, transport.ts),
 * declared once under components.headers and referenced by every response.
 */
const EVERY_ANSWER: Record<string, Json> = {
  'X-Request-ID': { description: 'The request id: the one the client sent when it is printable ASCII of at most 128 characters, a new UUID otherwise. Logged with the request.', required: true, schema: { type: 'string', maxLength: 128 } },
  'X-API-Version': { description: 'The API version.', required: true, schema: { type: 'string', const: '1' } },
  ...Object.fromEntries(Object.entries(SECURITY_HEADERS).map(([name, value]) => [name, { description: `Security header, on every answer.`, required: true, schema: { type: 'string', const: value } }])),
}

/** Headers some answers carry, by status or by the route's declaration. */
const RETRY_AFTER: Json = { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } }
// Sent when the token is missing or invalid; a refused credential in a body (a sign-in) answers 401 without it.
const WWW_AUTHENTICATE: Json = { description: 'The authentication scheme to use, when the bearer token was missing or invalid.', schema: { type: 'string', const: 'Bearer' } }

/**
 * Answers any operation can give before its route runs: a request that is not
 * valid HTTP for this server (no or an invalid Host, a path that does not
 * decode) and one whose request line and headers exceed Node's limit.
 */
const TRANSPORT_STATUSES = [400, 431] as const

/** Whether a success schema can carry a session token (SessionTokenResponse's shape, alone or in a union). */
function answersSession(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false
  const s = schema as { properties?: Record<string, { const?: unknown }>; anyOf?: unknown[]; oneOf?: unknown[] }
  if (s.properties?.access_token && s.properties.token_type?.const === 'bearer') return true
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(answersSession)
}

/** The console's session (kernel/security/session-cookie.ts), as a parameter and a header of the routes that give a session. */
const CONSOLE_SESSION_PARAMETER: Json = {
  name: CONSOLE_HEADER_NAME,
  in: 'header',
  required: false,
  description: `Sent by the web console: with \`1\`, a session answer also sets the token as cookie \`${SESSION_COOKIE}\` (HttpOnly, SameSite=Strict, Path=/api/, Max-Age the session's lifetime, Secure over HTTPS or with an https \`identity.public_url\`). API clients leave it out and use the token of the body.`,
  schema: { type: 'string', const: '1' },
}
const SESSION_SET_COOKIE: Json = {
  description: `With request header ${CONSOLE_HEADER_NAME}: 1 and a session in the body: \`${SESSION_COOKIE}=<the access_token>; Max-Age=<expires_in>; HttpOnly; SameSite=Strict; Path=/api/\` (plus \`; Secure\`).`,
  schema: { type: 'string' },
}
const CLEARED_COOKIE: Json = {
  description: `\`${SESSION_COOKIE}=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/api/\` (plus \`; Secure\`): the browser drops the console's session cookie.`,
  required: true,
  schema: { type: 'string' },
}

export function buildOpenApi(routes: OwnedRoute[], info: { version: string }): Json {
  const components: Record<string, Json> = {}

  /** Deep copy of a schema with titled sub-schemas hoisted into components. */
  const lift = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map((s) => lift(s))
    if (!schema || typeof schema !== 'object') return schema
    const s = schema as Json
    const copy: Json = {}
    for (const [k, v] of Object.entries(s)) copy[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as Json).map(([pk, pv]) => [pk, lift(pv)])) : lift(v)
    const title = typeof s.title === 'string' && /^[A-Z][A-Za-z0-9]+$/.test(s.title) ? s.title : null
    if (!title) return copy
    const prev = components[title]
    if (prev && JSON.stringify(prev) !== JSON.stringify(copy)) throw new Error(`two different schemas are both titled ${title}`)
    components[title] = copy
    return { $ref: `#/components/schemas/${title}` }
  }

  lift(ErrorBody)
  // A 422 is the envelope, plus (when a request body broke its schema) every field's problem at once.
  const envelope = components.ErrorBody as { properties: Record<string, Json> }
  components.HTTPValidationError = {
    ...components.ErrorBody,
    title: 'HTTPValidationError',
    description: 'The error envelope, as answered with 422. When the request body broke its schema, `errors` lists every field\'s problem (one per field, at most 50), the first being the one `detail`, `code` and `field` describe.',
    properties: {
      ...envelope.properties,
      errors: {
        type: 'array',
        maxItems: 50,
        description: 'Every field error of the body, in the order of the schema; absent for other 422s.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['field', 'code', 'detail'],
          properties: { field: envelope.properties.field, code: { type: 'string' }, detail: { type: 'string' } },
        },
      },
    },
  }
  const errorRef = { $ref: '#/components/schemas/ErrorBody' }
  lift(RateLimitBody)
  const headerComponents: Record<string, Json> = { ...EVERY_ANSWER, 'Retry-After': RETRY_AFTER, 'WWW-Authenticate': WWW_AUTHENTICATE }
  const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })
  /** The headers of one answer: the conventions', then those of its status, then the route's own. */
  const headersFor = (code: number, own: Record<string, Json> = {}): Json => ({
    ...Object.fromEntries(Object.keys(EVERY_ANSWER).map((h) => [h, headerRef(h)])),
    ...(code === 401 ? { 'WWW-Authenticate': headerRef('WWW-Authenticate') } : {}),
    // 429 always says when to retry; a 503 does when the cause is passing (an outage, a timeout, a read-only node).
    ...(code === 429 ? { 'Retry-After': { ...RETRY_AFTER, required: true } } : code === 503 ? { 'Retry-After': headerRef('Retry-After') } : {}),
    ...own,
  })
  // Every error answer is the envelope; a 422 is the same envelope under the name HTTPValidationError,
  // whatever a route declares for it (a plugin that wrote `422: ErrorBody` documents the kernel's body).
  const errorResponse = (code: number) => ({
    description: STATUS_TEXT[code] ?? String(code),
    headers: headersFor(code),
    content: { 'application/json': { schema: code === 422 ? { $ref: '#/components/schemas/HTTPValidationError' } : errorRef } },
  })
  const isEnvelope = (schema: unknown) => schema === ErrorBody || (schema as { title?: unknown } | null)?.title === 'ErrorBody'
  const download = (route: RouteDefinition) => {
    const d = route.download
    const own: Record<string, Json> = d?.headers
      ? Object.fromEntries(Object.entries(d.headers).map(([h, v]) => [h, { description: v.description, ...(v.required ? { required: true } : {}), schema: lift(v.schema) }]))
      : { 'Content-Disposition': { description: 'attachment; filename="…"', required: true, schema: { type: 'string' } } }
    const types = d?.mediaTypes ?? ['application/octet-stream']
    return { description: 'A file download', headers: headersFor(200, own), content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string', contentMediaType: t } }])) }
  }

  const paths: Record<string, Json> = {}
  const usedIds = new Set<string>()
  for (const { owner, route } of routes) {
    const p = fullPath(route)
    const parameters: Json[] = []
    for (const [where, schema] of [['path', route.schema.params], ['query', route.schema.query]] as const) {
      const props = (schema as { properties?: Record<string, TSchema>; required?: string[] } | undefined)?.properties ?? {}
      const required = (schema as { required?: string[] } | undefined)?.required ?? []
      for (const [name, ps] of Object.entries(props)) {
        const ls = lift(ps) as Json
        parameters.push({ name, in: where, required: where === 'path' || required.includes(name), schema: ls, ...(ls.description ? { description: ls.description } : {}) })
      }
    }
    const responses: Record<string, Json> = {}
    let givesSession = false
    for (const [code, schema] of Object.entries(route.schema.response)) {
      const c = Number(code)
      const session = c < 300 && answersSession(schema)
      givesSession ||= session
      if (c >= 400 && (schema === null || isEnvelope(schema))) responses[code] = errorResponse(c)
      else if (schema === null) responses[code] = { description: STATUS_TEXT[c] ?? code, headers: headersFor(c, c < 300 && endsConsoleSession.has(route) ? { 'Set-Cookie': CLEARED_COOKIE } : {}) }
      else if (schema === 'file') responses[code] = download(route)
      else responses[code] = { description: STATUS_TEXT[c] ?? code, headers: headersFor(c, session ? { 'Set-Cookie': SESSION_SET_COOKIE } : {}), content: { 'application/json': { schema: lift(schema) } } }
    }
    if (givesSession) parameters.push(CONSOLE_SESSION_PARAMETER)
    const gated = route.permission !== PUBLIC
    const errorCodes = [
      ...TRANSPORT_STATUSES,
      ...(gated ? (route.permission === AUTHENTICATED ? [401] : [401, 403]) : []),
      // A path parameter names a record, which may not exist.
      ...(route.schema.params ? [404] : []),
      ...(route.schema.params || route.schema.query || route.schema.body ? [422] : []),
      ...(route.schema.body || route.rawBody ? [413, 415] : []),
      ...(route.rawBody ? [422] : []),
      500,
      503,
    ]
    for (const c of errorCodes) if (!responses[c]) responses[c] = errorResponse(c)
    const limits = limitsOf(route.rateLimit)
    if (limits.length) {
      responses['429'] = {
        description: `${STATUS_TEXT[429]}: ${limits.map(describeLimit).join('; ')}`,
        headers: headersFor(429),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/RateLimitBody' } } },
      }
    }
    let operationId = `${route.method.toLowerCase()}${p.replace(/\{([^}]+)\}/g, 'by_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : ''))}`
    while (usedIds.has(operationId)) operationId += '_'
    usedIds.add(operationId)
    const op: Json = {
      operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags ?? [owner],
      parameters,
      responses,
      // Either the bearer token, or the console's cookie together with its header (both at once: OpenAPI's AND).
      security: gated ? [{ bearer: [] }, { consoleSession: [], consoleHeader: [] }] : [],
      ...(gated ? { 'x-permission': route.permission === AUTHENTICATED ? 'any signed-in user' : route.permission } : {}),
      ...(route.acceptTokenPurposes ? { 'x-token-purposes': route.acceptTokenPurposes } : {}),
      'x-plugin': owner,
    }
    if (route.schema.body) op.requestBody = { required: true, content: { 'application/json': { schema: lift(route.schema.body) } } }
    if (route.rawBody) op.requestBody = { required: true, description: route.rawBody.description, content: Object.fromEntries(route.rawBody.mediaTypes.map((m) => [m, { schema: m === 'application/json' && route.rawBody!.jsonSchema ? lift(route.rawBody!.jsonSchema) : { type: 'string', format: 'binary', maxLength: route.rawBody!.maxBytes } }])) }
    if (successStatus(route) === 204 && !responses['204']) responses['204'] = { description: STATUS_TEXT[204], headers: headersFor(204) }
    ;(paths[p] ??= {})[route.method.toLowerCase()] = op
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Portcullis management API',
      version: info.version,
      description:
        'Network access control: TACACS+ and RADIUS device administration, 802.1X and NAC. Every response carries X-Request-ID, X-API-Version: 1 and the security headers (each response declares them); failures answer `{ detail, code, field }` (429 answers `{ detail, retry_after }`). ' +
        'Besides the statuses each operation lists, a request the server cannot take as HTTP answers in the same envelope before any route runs: 408 (request not received in time), 417 (an Expect other than 100-continue), and a method a path does not take answers 405 with Allow.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components,
      headers: headerComponents,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        consoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `The web console's session: the session token, set by a sign-in that sent ${CONSOLE_HEADER_NAME}: 1. Counts only with header ${CONSOLE_HEADER_NAME}: 1 (scheme consoleHeader) and no Authorization header; a request with the cookie alone is not authenticated (CSRF defence, docs/security.md).`,
        },
        consoleHeader: {
          type: 'apiKey',
          in: 'header',
          name: CONSOLE_HEADER_NAME,
          description: 'Value `1`. Not a secret: a page of another origin cannot send it without a CORS preflight, which this server never grants.',
        },
      },
    },
  }
}
