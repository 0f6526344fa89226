/**
 * Pages other plugins add (plugins/console/api.ts, docs/ui.md): listed by
 * GET /api/v1/console/extensions, each plugin's ES module imported when one of
 * its pages opens. The module exports `mount(element, host)` and returns an
 * unmount function: a plugin may draw with any library (or none), and keeps
 * working when the console changes its own.
 */
import { Alert, Loader } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { api, consoleHeaders } from './api/client'
import type { ConsoleExtensions } from './api/types'
import { useAuth } from './auth'
import { useI18n, type Language } from './i18n'
import { navigate } from './router'

/** What a plugin's module receives. */
export interface ConsoleHost {
  /** The page's path under the plugin (`reports`, `reports/42`). */
  path: string
  language: Language
  /** fetch for /api/v1 with the session (the cookie and the console's header) and language; answers the Response as is. */
  fetch(path: string, init?: RequestInit): Promise<Response>
  navigate(to: string): void
  can(permission: string): boolean
}

export interface ConsoleModule {
  mount(element: HTMLElement, host: ConsoleHost): void | (() => void)
}

export function useExtensions(): ConsoleExtensions['items'] {
  const q = useQuery({ queryKey: ['console-extensions'], queryFn: () => api.get('/api/v1/console/extensions'), staleTime: Infinity })
  return q.data?.items ?? []
}

export function ExtensionPage({ plugin, path }: { plugin: string; path: string }) {
  const { t, language } = useI18n()
  const auth = useAuth()
  const extensions = useExtensions()
  const ref = useRef<HTMLDivElement>(null)
  const [failed, setFailed] = useState(false)
  const ext = extensions.find((e) => e.plugin === plugin)
  useEffect(() => {
    if (!ext || !ref.current) return
    const el = ref.current
    let unmount: void | (() => void)
    let live = true
    const host: ConsoleHost = {
      path,
      language,
      navigate,
      can: auth.can,
      fetch: (p, init = {}) => {
        // The session is the cookie the browser sends; the console's header lets it count (docs/security.md).
        const headers = new Headers(init.headers)
        for (const [k, v] of Object.entries(consoleHeaders())) headers.set(k, v)
        headers.set('Accept-Language', language)
        return fetch(p, { ...init, headers })
      },
    }
    import(/* @vite-ignore */ ext.module).then(
      (m: ConsoleModule) => {
        if (live) unmount = m.mount(el, host)
      },
      () => setFailed(true),
    )
    return () => {
      live = false
      if (typeof unmount === 'function') unmount()
      el.replaceChildren()
    }
  }, [ext, path, language, auth.can])
  if (!extensions.length) return <Loader aria-label={t.common.loading} />
  if (!ext || failed) return <Alert color="red">{t.plugins.loadFailed(plugin)}</Alert>
  return <div ref={ref} data-plugin={plugin} />
}
