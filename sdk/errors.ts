/**
 * One error family for the whole platform. Every failure a client sees is a
 * PortcullisError rendered as `{ detail, code, field }`; `detail` is produced
 * from `messageKey` by i18next in the caller's language, so a plugin never
 * formats user-facing text itself.
 */
export interface ErrorOptions {
  field?: string | null
  /** Interpolation values for the localized message. */
  vars?: Record<string, unknown>
  headers?: Record<string, string>
  cause?: unknown
  /**
   * Every problem of the request, when there are several (a body that breaks its schema in two
   * fields): answered as `errors: [{ field, code, detail }]` beside the first one's envelope.
   */
  errors?: readonly PortcullisError[]
}

/** Brand shared by every copy of the SDK: a plugin installed from npm may bundle its own. */
const BRAND = Symbol.for('portcullis.error')

export class PortcullisError extends Error {
  readonly [BRAND] = true
  readonly status: number
  readonly code: string
  readonly messageKey: string
  readonly field: string | null
  readonly vars: Record<string, unknown>
  readonly headers: Record<string, string>
  readonly errors: readonly PortcullisError[]

  constructor(status: number, code: string, messageKey: string, opts: ErrorOptions = {}) {
    super(`${code}: ${messageKey}`, { cause: opts.cause })
    this.name = 'PortcullisError'
    this.status = status
    this.code = code
    this.messageKey = messageKey
    this.field = opts.field ?? null
    this.vars = opts.vars ?? {}
    this.headers = opts.headers ?? {}
    this.errors = opts.errors ?? []
  }
}

export type ErrorFactory = (opts?: ErrorOptions) => PortcullisError

/**
 * Fastify-style coded error factory: declare once, throw anywhere.
 * `messageKey` is an i18next key (`namespace:key`); plugins ship their own namespace.
 */
export function defineError(status: number, code: string, messageKey: string): ErrorFactory & { code: string; status: number } {
  const factory = (opts?: ErrorOptions) => new PortcullisError(status, code, messageKey, opts)
  return Object.assign(factory, { code, status })
}

export const isPortcullisError = (e: unknown): e is PortcullisError =>
  e instanceof PortcullisError || (typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[BRAND] === true)

/**
 * A write refused by a foreign key: the record is still referenced (SQLSTATE 23503 for NO ACTION,
 * 23001 for RESTRICT). Plugins turn it into their own 409 (`DEVICE_IN_USE` …); unmapped, the
 * kernel answers 409 RECORD_IN_USE.
 */
export const isReferenceViolation = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code
  return code === '23503' || code === '23001'
}

/** Errors every plugin may need; codes are documented in docs/errors.md. */
export const CommonErrors = {
  notFound: defineError(404, 'NOT_FOUND', 'core:errors.not_found'),
  validation: defineError(422, 'VALIDATION_FAILED', 'core:errors.validation'),
  conflict: defineError(409, 'CONFLICT', 'core:errors.conflict'),
  forbidden: defineError(403, 'FORBIDDEN', 'core:errors.forbidden_generic'),
  unauthorized: defineError(401, 'UNAUTHORIZED', 'core:errors.unauthorized'),
  unavailable: defineError(503, 'SERVICE_UNAVAILABLE', 'core:errors.unavailable'),
} as const
