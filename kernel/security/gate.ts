/**
 * The gate: who is calling, and may they call this route. A bearer token must
 * be valid and of purpose `session` unless the route widens the purposes;
 * any other purpose answers 401. Admins bypass the permission check. The
 * console's session cookie stands for the header only as session-cookie.ts says.
 */
import { AUTHENTICATED, PortcullisError, PUBLIC, type Actor, type RouteDefinition } from '../../sdk/index.js'
import { masterKeyUnavailable } from './secrets.js'
import type { TokenClaims, TokenService } from './tokens.js'

export const tokenInvalid = () => new PortcullisError(401, 'TOKEN_INVALID', 'core:errors.token_invalid', { headers: { 'WWW-Authenticate': 'Bearer' } })
const tokenPurpose = () => new PortcullisError(401, 'TOKEN_PURPOSE_NOT_ACCEPTED', 'core:errors.token_purpose', { headers: { 'WWW-Authenticate': 'Bearer' } })

/** Turns verified claims into the current actor (enabled, not revoked, with today's permissions), or null. */
export type ActorResolver = (claims: TokenClaims) => Promise<Actor | null>

const SESSION_ONLY: readonly string[] = ['session']

export class Gate {
  constructor(private readonly tokens: TokenService | null, private readonly resolveActor: ActorResolver) {}

  /**
   * Null on a public route; otherwise the actor, or a thrown 401/403. `consoleCookie`: the
   * console's session cookie, passed only when the request carries the console's header
   * (session-cookie.ts); it counts only when there is no Authorization header at all.
   */
  async check(route: RouteDefinition, authorization: string | undefined, consoleCookie?: string): Promise<Actor | null> {
    if (route.permission === PUBLIC) return null
    const token = authorization !== undefined ? /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization)?.[1] : consoleCookie
    if (!token) throw tokenInvalid()
    if (!this.tokens) throw masterKeyUnavailable()
    const claims = await this.tokens.verify(token)
    if (!claims) throw tokenInvalid()
    // The cookie only ever holds a session (mount.ts sets no other): whatever a route widens to, it stays one.
    const accepted: readonly string[] = authorization === undefined ? SESSION_ONLY : (route.acceptTokenPurposes ?? SESSION_ONLY)
    if (!accepted.includes(claims.purpose)) throw tokenPurpose()
    const actor = await this.resolveActor(claims)
    if (!actor) throw tokenInvalid()
    if (route.permission === AUTHENTICATED) return actor
    if (!actor.isAdmin && !actor.permissions.has(route.permission)) {
      throw new PortcullisError(403, 'PERMISSION_DENIED', 'core:errors.forbidden', { vars: { permission: route.permission } })
    }
    return actor
  }

  /** Whether `token` is a valid session token (what may go into the console's cookie). */
  async isSession(token: string): Promise<boolean> {
    return (await this.tokens?.verify(token))?.purpose === 'session'
  }
}
