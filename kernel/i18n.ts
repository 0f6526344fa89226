import i18next, { type i18n } from 'i18next'
import { isPhrase, type LocaleResources } from '../sdk/index.js'
import en from './locales/en.js'
import ru from './locales/ru.js'

export const LANGUAGES = ['en', 'ru'] as const
export type Language = (typeof LANGUAGES)[number]

export interface Translator {
  t(lang: string, key: string, vars?: Record<string, unknown>): string
  addNamespace(ns: string, resources: { en: LocaleResources; ru?: LocaleResources }): void
}

/** One i18next instance per app; the kernel's messages live in the `core` namespace, each plugin's under its id. */
export async function createTranslator(): Promise<Translator> {
  const inst: i18n = i18next.createInstance()
  await inst.init({
    lng: 'en',
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    ns: ['core'],
    defaultNS: 'core',
    interpolation: { escapeValue: false },
    resources: { en: { core: en }, ru: { core: ru } },
    initAsync: false,
    showSupportNotice: false,
  } as Parameters<i18n['init']>[0])
  const fixed = new Map<string, ReturnType<i18n['getFixedT']>>()
  const translate = (lang: string, key: string, vars?: Record<string, unknown>): string => {
    let t = fixed.get(lang)
    if (!t) fixed.set(lang, (t = inst.getFixedT(lang)))
    return t(key, phrased(vars, (k, v) => translate(lang, k, v))) as string
  }
  return {
    t: translate,
    addNamespace(ns, resources) {
      inst.addResourceBundle('en', ns, resources.en, true, true)
      if (resources.ru) inst.addResourceBundle('ru', ns, resources.ru, true, true)
    },
  }
}

/** Values that are phrases (sdk/say.ts) translated first, in the same language; other values as they are. */
function phrased(vars: Record<string, unknown> | undefined, t: (key: string, vars: Record<string, unknown>) => string): Record<string, unknown> {
  if (!vars) return {}
  let out: Record<string, unknown> | null = null
  for (const [k, v] of Object.entries(vars)) if (isPhrase(v)) (out ??= { ...vars })[k] = t(v.key, v.vars)
  return out ?? vars
}

/** Pick `en` or `ru` from Accept-Language by quality; anything else falls back to `en`. */
export function negotiateLanguage(header: string | undefined): Language {
  if (!header) return 'en'
  let best: Language = 'en'
  let bestQ = -1
  for (const part of header.split(',').slice(0, 20)) {
    const [tag, ...params] = part.trim().split(';')
    const base = tag.trim().toLowerCase().split('-')[0]
    const qParam = params.find((p) => p.trim().startsWith('q='))
    const q = qParam ? Number(qParam.trim().slice(2)) : 1
    if ((LANGUAGES as readonly string[]).includes(base) && Number.isFinite(q) && q > 0 && q > bestQ) {
      best = base as Language
      bestQ = q
    }
  }
  return best
}
