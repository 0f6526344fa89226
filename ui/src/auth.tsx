/**
 * The session: the access token lives in sessionStorage (this tab only,
 * gone when it closes), never in localStorage where it would outlive the tab.
 * `me` is the signed-in user as /auth/me tells it (permissions included).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react'
import { api, session } from './api/client'
import { navigate } from './router'
import type { Me } from './api/types'

const KEY = 'portcullis.token'

interface Auth {
  token: string | null
  me: Me | undefined
  signIn(token: string): void
  signOut(): Promise<void>
  can(permission: string): boolean
}

const Ctx = createContext<Auth | null>(null)

export function AuthProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient()
  const [token, setToken] = useState<string | null>(() => sessionStorage.getItem(KEY))
  session.token = token
  const drop = useCallback(() => {
    sessionStorage.removeItem(KEY)
    session.token = null
    setToken(null)
    qc.clear()
  }, [qc])
  session.onExpired = drop
  const me = useQuery({ queryKey: ['me', token], queryFn: () => api.get('/api/v1/auth/me'), enabled: token !== null, staleTime: 60_000 })
  const value = useMemo<Auth>(
    () => ({
      token,
      me: me.data,
      signIn: (t) => {
        sessionStorage.setItem(KEY, t)
        session.token = t
        setToken(t)
      },
      signOut: async () => {
        await api.post('/api/v1/auth/logout').catch(() => undefined)
        drop()
        // A chosen sign-out starts the next sign-in at the dashboard; an expired session keeps the page to come back to.
        navigate('/', { replace: true })
      },
      can: (p) => !!me.data && (me.data.is_admin || me.data.permissions.includes(p)),
    }),
    [token, me.data, drop],
  )
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>
}

export function useAuth(): Auth {
  const c = useContext(Ctx)
  if (!c) throw new Error('useAuth outside AuthProvider')
  return c
}

/**
 * Whether a plugin runs on the server. An administrator holds every permission, loaded plugin or not:
 * a screen or link of a plugin's is offered only when it runs (system info lists the plugins; a user
 * who may not read it is offered what their permissions name).
 */
export function usePluginRuns(): (plugin: string) => boolean {
  const auth = useAuth()
  const info = useQuery({ queryKey: ['system-info'], queryFn: () => api.get('/api/v1/dashboard/system-info'), enabled: auth.can('system.info.read'), staleTime: 60_000 })
  return (plugin) => !info.data || info.data.plugins.some((p) => p.id === plugin)
}
