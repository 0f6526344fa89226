/**
 * Two languages. The first visit follows the browser's languages (what it
 * sends as Accept-Language); the switch in the header overrides and is
 * remembered. The API is asked in the same language, so its error `detail`
 * reads in the language of the screen.
 */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { session } from '../api/client'
import en, { type Messages } from './en'
import ru from './ru'

export type Language = 'en' | 'ru'
const CATALOG: Record<Language, Messages> = { en, ru }
const KEY = 'portcullis.language'

export function initialLanguage(): Language {
  const saved = localStorage.getItem(KEY)
  if (saved === 'en' || saved === 'ru') return saved
  for (const l of navigator.languages ?? [navigator.language]) {
    const base = l.toLowerCase().split('-')[0]
    if (base === 'ru' || base === 'en') return base
  }
  return 'en'
}

interface I18n {
  t: Messages
  language: Language
  setLanguage(l: Language): void
}

const Ctx = createContext<I18n | null>(null)

export function I18nProvider({ children }: { children: ReactNode }) {
  const [language, setLang] = useState<Language>(initialLanguage)
  session.language = language
  useEffect(() => {
    document.documentElement.lang = language
  }, [language])
  const value = useMemo<I18n>(
    () => ({
      t: CATALOG[language],
      language,
      setLanguage: (l) => {
        localStorage.setItem(KEY, l)
        session.language = l
        setLang(l)
      },
    }),
    [language],
  )
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>
}

export function useI18n(): I18n {
  const c = useContext(Ctx)
  if (!c) throw new Error('useI18n outside I18nProvider')
  return c
}
