/**
 * The session: an HttpOnly cookie the server sets at sign-in (docs/security.md), shared by
 * every tab of the browser and out of reach of any script, this console's included. So the
 * console knows it is signed in only by asking: /auth/me answers (signed in) or 401s (not).
 * `me` is the signed-in user as /auth/me tells it (permissions included).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react'
import { api, ApiError, session } from './api/client'
import { navigate } from './router'
import type { Me } from './api/types'

interface Auth {
  /** null while /auth/me is being asked (a page just opened, a sign-in just done). */
  signedIn: boolean | null
  me: Me | undefined
  /** After a sign-in answered a session: the server has set the cookie, /auth/me is asked again. */
  signIn(): void
  signOut(): Promise<void>
  can(permission: string): boolean
}

const Ctx = createContext<Auth | null>(null)

/** A 401 is an answer (no session); other failures (a node restarting) are tried again. */
const retry = (n: number, e: unknown) => !(e instanceof ApiError && e.status === 401) && n < 2

export function AuthProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient()
  // Signed out for sure (a sign-out, a session the server refused): no /auth/me until the next sign-in.
  const [out, setOut] = useState(false)
  const me = useQuery({ queryKey: ['me'], queryFn: () => api.get('/api/v1/auth/me'), enabled: !out, staleTime: 60_000, retry })
  const signedIn = out ? false : me.data ? true : me.isError ? false : null
  session.signedIn = signedIn === true
  const drop = useCallback(() => {
    session.signedIn = false
    setOut(true)
    qc.clear()
  }, [qc])
  session.onExpired = drop
  const value = useMemo<Auth>(
    () => ({
      signedIn,
      me: me.data,
      signIn: () => {
        // Reset, not removed: the mounted query is told, forgets the 401 of before and asks again.
        setOut(false)
        void qc.resetQueries({ queryKey: ['me'] })
      },
      signOut: async () => {
        // The server revokes the token and clears the cookie: every tab of this browser is signed out.
        await api.post('/api/v1/auth/logout').catch(() => undefined)
        drop()
        // A chosen sign-out starts the next sign-in at the dashboard; an expired session keeps the page to come back to.
        navigate('/', { replace: true })
      },
      can: (p) => !!me.data && (me.data.is_admin || me.data.permissions.includes(p)),
    }),
    [signedIn, me.data, drop, qc],
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
