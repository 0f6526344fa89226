/**
 * OpenAPI 3.1 from the route table: the same schemas that validate requests.
 * A schema with a `title` becomes a component and is referenced by `$ref`.
 * Built only when documentation is enabled.
 */
import { AUTHENTICATED, PUBLIC, ErrorBody, RateLimitBody, type TSchema } from '../../sdk/index.js'
import type { OwnedRoute } from '../plugins/registry.js'
import { fullPath, successStatus } from './mount.js'
import { describeLimit, limitsOf } from './rate-limit.js'

type Json = Record<string, unknown>

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content', 400: 'Bad request', 401: 'Not authenticated, or a token of the wrong purpose',
  403: 'Authenticated but lacking the permission', 404: 'Not found', 409: 'Conflict with the current state', 413: 'Body too large',
  415: 'Body is not JSON', 422: 'Validation failed (HTTPValidationError)', 429: 'Rate limit exceeded', 500: 'Internal error', 503: 'Unavailable (database outage, master key missing, or degraded readiness)',
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
  components.HTTPValidationError = { ...components.ErrorBody, title: 'HTTPValidationError', description: 'The error envelope, as answered with 422.' }
  const errorRef = { $ref: '#/components/schemas/ErrorBody' }
  const errorResponse = (code: number) => ({ description: STATUS_TEXT[code] ?? String(code), content: { 'application/json': { schema: code === 422 ? { $ref: '#/components/schemas/HTTPValidationError' } : errorRef } } })
  lift(RateLimitBody)

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
    for (const [code, schema] of Object.entries(route.schema.response)) {
      const c = Number(code)
      if (schema === null) responses[code] = c >= 400 ? errorResponse(c) : { description: STATUS_TEXT[c] ?? code }
      else if (schema === 'file') responses[code] = { description: 'A file download', content: { 'application/octet-stream': { schema: {} } } }
      else responses[code] = { description: STATUS_TEXT[c] ?? code, content: { 'application/json': { schema: lift(schema) } } }
    }
    const gated = route.permission !== PUBLIC
    const errorCodes = [...(gated ? (route.permission === AUTHENTICATED ? [401] : [401, 403]) : []), ...(route.schema.params || route.schema.query || route.schema.body ? [422] : []), ...(route.schema.body ? [413, 415] : []), 500, 503]
    for (const c of errorCodes) if (!responses[c]) responses[c] = errorResponse(c)
    const limits = limitsOf(route.rateLimit)
    if (limits.length) {
      responses['429'] = {
        description: `${STATUS_TEXT[429]}: ${limits.map(describeLimit).join('; ')}`,
        headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' } },
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
      security: gated ? [{ bearer: [] }] : [],
      ...(gated ? { 'x-permission': route.permission === AUTHENTICATED ? 'any signed-in user' : route.permission } : {}),
      ...(route.acceptTokenPurposes ? { 'x-token-purposes': route.acceptTokenPurposes } : {}),
      'x-plugin': owner,
    }
    if (route.schema.body) op.requestBody = { required: true, content: { 'application/json': { schema: lift(route.schema.body) } } }
    if (successStatus(route) === 204 && !responses['204']) responses['204'] = { description: STATUS_TEXT[204] }
    ;(paths[p] ??= {})[route.method.toLowerCase()] = op
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Portcullis management API',
      version: info.version,
      description: 'Network access control: TACACS+ and RADIUS device administration, 802.1X and NAC. Every response carries X-Request-ID and X-API-Version: 1; failures answer `{ detail, code, field }`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  }
}
