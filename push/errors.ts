/**
 * The push service's errors, in the platform's envelope `{detail, code, field}`. The detail is in
 * the language of Accept-Language (en, ru), as the core's; codes are stable (docs/push-mfa.md).
 * Its own small table, not the kernel's i18n: the service imports nothing of the kernel.
 */

type Text = { en: string; ru: string }

const MESSAGES: Record<string, Text> = {
  BODY_TOO_LARGE: { en: 'The request body is larger than {limit} bytes.', ru: 'Тело запроса больше {limit} байт.' },
  BODY_REQUIRED: { en: 'A JSON body is required.', ru: 'Нужно тело запроса в формате JSON.' },
  BODY_MALFORMED_JSON: { en: 'The request body is not valid JSON.', ru: 'Тело запроса — не корректный JSON.' },
  BODY_UNSUPPORTED_TYPE: { en: 'The request body must be JSON (application/json, UTF-8, not compressed).', ru: 'Тело запроса должно быть JSON (application/json, UTF-8, без сжатия).' },
  VALIDATION_FAILED: { en: '{field} {message}.', ru: 'Поле {field}: недопустимое значение ({message}).' },
  FIELD_REQUIRED: { en: '{field} is required.', ru: 'Поле {field} обязательно.' },
  UNKNOWN_FIELD: { en: '{field} is not declared.', ru: 'Поле {field} не предусмотрено.' },
  PUSH_ADDRESS_UNSUPPORTED: { en: 'This push service delivers through {sender} only.', ru: 'Эта служба доставляет уведомления только через {sender}.' },
  // The same code (the address is not one this service delivers to), said of the endpoint.
  'PUSH_ADDRESS_UNSUPPORTED.endpoint': { en: '{host} is not a push network this service delivers to.', ru: '{host} не входит в сети доставки уведомлений, с которыми работает эта служба.' },
  PUSH_CHANNEL_INVALID: { en: 'The request is not signed by the platform ({reason}).', ru: 'Запрос не подписан платформой ({reason}).' },
  PUSH_CORE_UNAVAILABLE: { en: 'The platform cannot be reached; try again later.', ru: 'Платформа недоступна; повторите позже.' },
  ROUTE_NOT_FOUND: { en: 'No route {method} {path}.', ru: 'Нет маршрута {method} {path}.' },
  METHOD_NOT_ALLOWED: { en: '{method} is not allowed here; allowed: {allow}.', ru: 'Метод {method} здесь не разрешён; разрешены: {allow}.' },
  RATE_LIMITED: { en: 'Too many requests; retry in {retryAfter} s.', ru: 'Слишком много запросов; повторите через {retryAfter} с.' },
  INTERNAL_ERROR: { en: 'Internal error.', ru: 'Внутренняя ошибка.' },
}

/**
 * A value that is itself a code, said in words per message: the signed-request check's refusal
 * (sdk/signed-request.ts) inside PUSH_CHANNEL_INVALID. An unknown value is shown as it is.
 */
const VALUE_WORDS: Record<string, Record<string, Record<string, Text>>> = {
  PUSH_CHANNEL_INVALID: {
    reason: {
      missing: { en: 'a signature header is missing or malformed', ru: 'заголовок подписи отсутствует или искажён' },
      stale: { en: 'the timestamp is outside the 60-second window', ru: 'метка времени вне 60-секундного окна' },
      bad_signature: { en: 'the signature does not match', ru: 'подпись не совпадает' },
      replayed: { en: 'the nonce was already used', ru: 'одноразовое значение (nonce) уже использовано' },
    },
  },
}

export type Language = 'en' | 'ru'

/** The first of en/ru the client prefers (by q), en otherwise. */
export function languageOf(acceptLanguage: string | undefined): Language {
  if (!acceptLanguage) return 'en'
  const ranked = acceptLanguage
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';')
      const q = Number(/q=([0-9.]+)/.exec(params.join(';'))?.[1] ?? 1)
      return { lang: tag.split('-')[0], q: Number.isFinite(q) ? q : 0, i }
    })
    .filter((l) => l.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
  for (const l of ranked) if (l.lang === 'en' || l.lang === 'ru') return l.lang
  return 'en'
}

export class PushError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly vars: Record<string, string | number> = {},
    readonly field: string | null = null,
    readonly headers: Record<string, string> = {},
    /** The message's key when a code has more than one wording. */
    readonly messageKey: string = code,
  ) {
    super(code)
  }

  detail(lang: Language): string {
    const text = MESSAGES[this.messageKey]?.[lang] ?? MESSAGES.INTERNAL_ERROR[lang]
    return text.replace(/\{(\w+)\}/g, (_m, k: string) => {
      const v = String(this.vars[k] ?? '')
      return VALUE_WORDS[this.messageKey]?.[k]?.[v]?.[lang] ?? v
    })
  }
}

/** An enrollment's Web Push endpoint that is not on an allowed push network (PUSH_WEBPUSH_ALLOWED_HOSTS). */
export const endpointNotAllowed = (host: string) => new PushError(422, 'PUSH_ADDRESS_UNSUPPORTED', { host }, 'push.endpoint', {}, 'PUSH_ADDRESS_UNSUPPORTED.endpoint')
export const tooLarge = (limit: number) => new PushError(413, 'BODY_TOO_LARGE', { limit })
export const coreUnavailable = () => new PushError(503, 'PUSH_CORE_UNAVAILABLE', {}, null, { 'Retry-After': '5' })
export const rateLimited = (retryAfter: number) => new PushError(429, 'RATE_LIMITED', { retryAfter }, null, { 'Retry-After': String(retryAfter) })
