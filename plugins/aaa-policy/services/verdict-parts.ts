/**
 * The parts of a policy-test verdict that need no reads: the refusals' reasons, the merged TACACS+
 * reply, the AV pairs in the order the NAS gets them. One copy for the policy test's evaluator
 * (services/evaluate.ts, which reads as it goes) and the change impact's in-memory one
 * (services/batch-evaluate.ts), so their answers and reasons cannot drift apart.
 */
import type { TacacsProfile, TacacsService } from '../../tacacs/api.js'
import type { Static } from '../../../sdk/index.js'
import type { METHODS, PolicyTestRequest, PolicyTestResponse } from '../schemas/test.js'
import type { LoginMaterial } from './policy-data.js'

// From the schemas, not from evaluate.ts, which imports this module.
type PolicyTestInput = Static<typeof PolicyTestRequest>
type PolicyTestResult = Static<typeof PolicyTestResponse>
type Method = (typeof METHODS)[number]

/** A decision sentence (locales verdict-en.ts, refusals-en.ts) by its key under `verdict`, in the caller's language. */
export type SayVerdict = (key: string, vars?: Record<string, unknown>) => string

export const PROTOCOL = { tacacs: 'TACACS+', radius: 'RADIUS' } as const
export const METHOD_NAME: Record<Method, string> = { pap: 'PAP', chap: 'CHAP', mschapv2: 'MS-CHAPv2', ascii: 'ASCII', enable: 'enable' }

/**
 * Why the daemon cannot check this login, given what it holds for the user (`verifiers`), or null
 * when it can (the password taken to be right). tac_plus-ng gets `password login = crypt …` and
 * `password pap = login` per user, and the kept cleartext as `password chap`/`password ms-chap =
 * clear …` (plugins/tacacs/renderers/chap.ts): CHAP and MS-CHAP work only for those users. Enable
 * comes from the matched rule's profile (`enableRefusal`), so it is never refused here.
 * FreeRADIUS gets the SHA-512 crypt (PAP), the NT hash (MS-CHAPv2), and the kept cleartext for a
 * user with chap_enabled whose password was set while it was on (CHAP).
 */
export function loginRefusal(protocol: keyof typeof PROTOCOL, method: Method, user: { username: string }, verifiers: LoginMaterial | null, say: SayVerdict): string | null {
  if (protocol === 'tacacs' && method === 'enable') return null
  if (!verifiers) {
    return say('login.no_password', { username: user.username })
  }
  if (verifiers.directory) {
    if (method === 'chap' || method === 'mschapv2') {
      return say('login.directory_method', { method: METHOD_NAME[method], username: user.username })
    }
    return null
  }
  if (protocol === 'tacacs' && (method === 'chap' || method === 'mschapv2') && verifiers.tacacs_lockout) {
    return say('login.lockout', { username: user.username, method: METHOD_NAME[method] })
  }
  if (protocol === 'tacacs' && (method === 'chap' || method === 'mschapv2') && !verifiers.tacacs_chap) {
    return say('login.no_cleartext', { method: METHOD_NAME[method], username: user.username, log: method === 'chap' ? 'failed (no clear text password set)' : 'failed' })
  }
  if (protocol === 'tacacs' && method === 'mschapv2' && !verifiers.tacacs_mschap) {
    return say('login.mschap_plane', { username: user.username })
  }
  if (protocol === 'radius' && method === 'chap' && !verifiers.chap) {
    return say('login.radius_chap', { username: user.username })
  }
  return null
}

/**
 * Why tac_plus-ng refuses `enable` (level 15, what the NAS's `enable` asks) under this profile, or
 * null when it takes the password (taken to be right). The rendered profile holds `enable N = login`
 * or `enable N = crypt …`; the daemon looks from the requested level upward (cfg_get_enable).
 * `hasLoginPassword`: whether the daemon holds the user's login password, read by the caller only
 * for a profile whose enable takes it (`enable_mode` login).
 */
export function enableRefusal(profile: TacacsProfile, user: { username: string }, hasLoginPassword: boolean | undefined, say: SayVerdict): string | null {
  if (profile.enable_mode === 'none') return say('enable.none')
  if (profile.enable_privilege_level < 15) return say('enable.level', { level: profile.enable_privilege_level })
  if (profile.enable_mode === 'login' && !hasLoginPassword) {
    return say('enable.no_password', { username: user.username })
  }
  return null
}

/**
 * The session's permit, with the authorization REPLY the NAS would get (the NAS's own pairs
 * merged as the daemon merges them): a mandatory NAS pair the profile does not set exactly fails
 * the authorization, so the answer is deny.
 */
export function withReply(tacacs: TacacsService, input: PolicyTestInput, result: PolicyTestResult, profile: TacacsProfile, permitted: string, say: SayVerdict): PolicyTestResult {
  const service = input.service ?? 'shell'
  const reply = input.method === 'enable' ? null : tacacs.authorizationReply(profile, service, input.nas_attributes ?? [])
  if (reply) result.authorization_reply = { status: reply.status, attributes: reply.attributes }
  if (reply?.status === 'fail') {
    const pair = `${reply.refused.name}=${reply.refused.value}`
    return Object.assign(result, {
      decision: 'deny' as const,
      reason: say('mandatory_attribute', { permitted, pair }),
    })
  }
  return Object.assign(result, { decision: 'permit' as const, reason: permitted })
}

type Attr = { name: string; value: string; optional?: boolean }
/** Attributes as the NAS receives them: tac_plus-ng sends the mandatory ones (`set`) first, then the optional ones (`add`), each in order. */
export const avPairs = (attrs: readonly Attr[]) =>
  [...attrs.filter((a) => !a.optional), ...attrs.filter((a) => a.optional)].map((a) => (a.optional ? { name: a.name, value: a.value, optional: true } : { name: a.name, value: a.value }))
