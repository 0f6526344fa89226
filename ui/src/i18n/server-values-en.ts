/**
 * English for values the server sends as codes and the dashboard shows (readiness checks, the
 * node's role): en.ts's `serverValues`. Unknown values show as sent.
 */
const serverValues = {
  database: { ok: 'reachable', unreachable: 'unreachable' } as Record<string, string>,
  masterKey: { loaded: 'loaded', missing: 'missing' } as Record<string, string>,
  role: { primary: 'primary', replica: 'read replica' } as Record<string, string>,
}

export type ServerValueMessages = typeof serverValues
export default serverValues
