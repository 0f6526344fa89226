/**
 * The second factor on FreeRADIUS (setting radius.mfa_mode), through the platform's internal
 * surface (/api/v1/mfa/internal/, docs/mfa.md "On the devices"), called with rlm_rest (Debian:
 * freeradius-rest) once the password is right:
 *
 * - `check` asks whether the user owes a code; the answer is read at each login, so enrolling or
 *   resetting an authenticator needs no deploy. Users without MFA are accepted as before.
 * - `challenge`: an Access-Challenge carries the surface's challenge in State and a Reply-Message
 *   asking for the code; the next Access-Request with that State has the code in User-Password and
 *   is checked with `verify`. A wrong code with budget left is challenged again (same State), the
 *   fifth closes the challenge: the budget of an API sign-in's mfa token.
 * - `append`: one Access-Request carries the password followed by the 6-digit code, for NASes that
 *   cannot answer a challenge. The password alone is tried first, so a user without MFA whose
 *   password ends in digits is unaffected.
 * - CHAP and MS-CHAP carry no code: an MFA user is challenged after them (challenge), or refused
 *   with `mfa_required` (append).
 *
 * Fail closed: the surface unreachable, a wrong key, an unexpected answer reject the login with
 * reason `mfa_unavailable` (and the HTTP status, in FreeRADIUS's log). The key is in files of mode
 * 0600 only. Checked with radclient against FreeRADIUS 3.2 (test/e2e-mfa.test.ts).
 *
 * The push to the phone is in mfa-push.ts; the unlang pieces both use (attribute names, the key
 * header, the replies) in mfa-parts.ts.
 */
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { quoteValue } from '../services/values.js'
import { FreeradiusRenderError, HEADER, refusal, T } from './syntax.js'
import { ALL_CONTINUE, ASK, BODY, CHALLENGE, challengeReply, CODE, decided, DECIDED, forget, keyHeader, lines, PUSH, STATUS, TOTP, unavailable, type FreeradiusMfa } from './mfa-parts.js'
import { push, pushStart, PUSH_STATE } from './mfa-push.js'

export { RADIUS_MFA_MODES, type FreeradiusMfa, type RadiusMfaMode } from './mfa-parts.js'

/** How long a daemon waits for the surface: a device login stalls that long when it is down. */
export const MFA_HTTP_TIMEOUT = '2.0'
/**
 * How long the push call may take: the platform answers at the push's end, at most setting
 * mfa.push_timeout_seconds later (120 s at most, routes/internal-push.ts PUSH_WAIT_CAP_MS), so the
 * setting changes with no deploy; 2 s more for the answer itself. The connection still gives up
 * after MFA_HTTP_TIMEOUT when the platform is down.
 */
export const PUSH_HTTP_TIMEOUT = '122.0'
/**
 * While the second factor is on, a request may wait that long for a push: FreeRADIUS's
 * max_request_time (config.ts) covers it, or the daemon would drop the answer of a slow approval.
 */
export const MFA_MAX_REQUEST_TIME = 130
/**
 * Each login waiting for a push holds one FreeRADIUS thread and one connection of the push
 * module's pool: both are raised so that this many can wait at once (config.ts thread pool).
 */
export const MFA_PUSH_WAITERS = 64
const URL = /^https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/

/** The secret the MFA files write (RenderedFile.secrets): the internal key, in the REST-HTTP-Header line. */
export const mfaSecrets = (m: FreeradiusMfa | null | undefined): string[] => (m ? [m.key] : [])

function restModule(name: string, url: string, data: string, timeout = MFA_HTTP_TIMEOUT, poolMax = 32): string {
  return [
    `rest ${name} {`,
    `${T}connect_uri = ${quoteValue(url)}`,
    `${T}connect_timeout = ${MFA_HTTP_TIMEOUT}`,
    `${T}# Used from the authenticate section with an explicit .authorize: the subsection that takes no User-Password.`,
    `${T}authorize {`,
    `${T}${T}uri = ${quoteValue(url)}`,
    `${T}${T}method = 'post'`,
    `${T}${T}body = 'json'`,
    `${T}${T}data = "${data}"`,
    `${T}${T}# The body lands in reply:REST-HTTP-Body (an internal attribute, never sent), read by the site.`,
    `${T}${T}force_to = 'plain'`,
    `${T}${T}timeout = ${timeout}`,
    `${T}}`,
    `${T}# No connection at start: the daemon starts while the platform is down, and fails closed then.`,
    `${T}pool {`,
    `${T}${T}start = 0`,
    `${T}${T}min = 0`,
    `${T}${T}max = ${poolMax}`,
    `${T}${T}spare = 4`,
    `${T}${T}uses = 0`,
    `${T}${T}retry_delay = 1`,
    `${T}${T}lifetime = 0`,
    `${T}${T}idle_timeout = 60`,
    `${T}}`,
    `}`,
  ].join('\n')
}

const USER = '%{jsonquote:%{User-Name}}'
/** What the phone shows: the client's address (Calling-Station-Id, may be absent) and the NAS's name. */
const PUSH_DATA = `{\\"username\\":\\"${USER}\\",\\"challenge\\":\\"%{control:${CHALLENGE}}\\",\\"origin\\":\\"radius\\",\\"ip\\":\\"%{jsonquote:%{%{Calling-Station-Id}:-}}\\",\\"client\\":\\"%{jsonquote:%{client:shortname}}\\"}`

/** mods-enabled/portcullis_mfa: the two calls, and `handled` as a statement. */
export function mfaModules(m: FreeradiusMfa | null): string {
  if (!m) return `${HEADER}\n# Device logins take the password alone: setting mfa.internal_key is null, or radius.mfa_mode is off.\n`
  if (!URL.test(m.baseUrl)) throw new FreeradiusRenderError('server option mfa.internal_url is not a URL of scheme, host and port')
  return [
    HEADER,
    '# The platform\'s internal MFA surface (rlm_rest; Debian package freeradius-rest).',
    restModule('portcullis_mfa_check', m.baseUrl + m.checkPath, `{\\"username\\":\\"${USER}\\"}`),
    '',
    restModule('portcullis_mfa_verify', m.baseUrl + m.verifyPath, `{\\"username\\":\\"${USER}\\",\\"code\\":\\"%{control:${CODE}}\\",\\"challenge\\":\\"%{control:${CHALLENGE}}\\"}`),
    '',
    '# A push to the user\'s phone: the call lasts until it is answered (at most mfa.push_timeout_seconds).',
    restModule('portcullis_mfa_push', m.baseUrl + m.pushPath, PUSH_DATA, PUSH_HTTP_TIMEOUT, MFA_PUSH_WAITERS),
    '',
    '# Challenge mode: the push sent with number matching (answered at once), then its wait.',
    restModule('portcullis_mfa_push_start', m.baseUrl + m.pushPath + '-start', PUSH_DATA.replace('\\"origin\\"', '\\"number_matching\\":true,\\"origin\\"')),
    '',
    restModule('portcullis_mfa_push_wait', m.baseUrl + m.pushPath + '-wait', `{\\"username\\":\\"${USER}\\",\\"challenge\\":\\"%{control:${CHALLENGE}}\\",\\"push_challenge\\":\\"%{control:${CODE}}\\"}`, PUSH_HTTP_TIMEOUT, MFA_PUSH_WAITERS),
    '',
    '# The Access-Challenge statement: Response-Packet-Type makes the reply a challenge.',
    'always handled {',
    `${T}rcode = handled`,
    '}',
    '',
  ].join('\n')
}

/**
 * After the password was accepted: does the user owe a code? `then` runs with the challenge in
 * control:Tmp-String-8 when they do.
 */
function check(m: FreeradiusMfa, i: string, then: string[], otherwise: string[] = [...decided(i), `${i}ok`]): string[] {
  return [
    ...keyHeader(m, i),
    `${i}portcullis_mfa_check.authorize {`,
    ...lines(i + T, ALL_CONTINUE),
    `${i}}`,
    // A missing status (no answer at all) compares false with anything: tested on its own.
    `${i}if (!&${STATUS} || &${STATUS} != 200) {`,
    ...unavailable(i + T),
    `${i}}`,
    `${i}if (&${BODY} && &${BODY} =~ /"required":true/ && &${BODY} =~ /"challenge":"([0-9a-f]{32})"/) {`,
    ...lines(i + T, ['update control {', `${T}&${CHALLENGE} := "%{1}"`, '}']),
    // The factors come in this order: ["totp"], ["push"], ["totp","push"].
    `${i}${T}if (&${BODY} =~ /"factors":\\[("totp",)?"push"\\]/) {`,
    ...lines(i + T + T, ['update control {', `${T}&${PUSH} := 1`, '}']),
    `${i}${T}}`,
    `${i}${T}if (&${BODY} =~ /"factors":\\["totp"/) {`,
    ...lines(i + T + T, ['update control {', `${T}&${TOTP} := 1`, '}']),
    `${i}${T}}`,
    ...forget(i + T),
    ...then,
    `${i}}`,
    `${i}elsif (!&${BODY} || &${BODY} !~ /"required":false/) {`,
    ...unavailable(i + T),
    `${i}}`,
    `${i}else {`,
    ...forget(i + T),
    ...otherwise.map((l) => T + l),
    `${i}}`,
  ]
}

/** The code in control:Tmp-String-9 against the challenge in control:Tmp-String-8. */
function verify(m: FreeradiusMfa, i: string, mode: FreeradiusMfa['mode']): string[] {
  const again = mode === 'challenge'
  return [
    ...keyHeader(m, i),
    `${i}portcullis_mfa_verify.authorize {`,
    ...lines(i + T, ALL_CONTINUE),
    `${i}}`,
    `${i}if (&${STATUS} && &${STATUS} == 429) {`,
    ...refusal('mfa_rate_limited', 'too many second-factor codes for this user: the platform refused to check more for now', i + T),
    ...forget(i + T),
    `${i}${T}reject`,
    `${i}}`,
    // A missing status (no answer at all) compares false with anything: tested on its own.
    `${i}if (!&${STATUS} || &${STATUS} != 200) {`,
    ...unavailable(i + T),
    `${i}}`,
    `${i}if (&${BODY} && &${BODY} =~ /"valid":true/) {`,
    ...forget(i + T),
    ...decided(i + T),
    `${i}${T}ok`,
    `${i}}`,
    ...(again
      ? [`${i}elsif (&${BODY} && &${BODY} =~ /"remaining":([1-9][0-9]*)/) {`, ...lines(i + T, ['update control {', `${T}&Tmp-String-7 := "%{1}"`, '}']), ...forget(i + T), ...challengeReply(i + T, `"Wrong code (%{control:Tmp-String-7} attempts left). Enter the code from your authenticator app:"`), `${i}}`]
      : []),
    `${i}else {`,
    ...refusal('mfa_bad_code', 'the second-factor code is wrong, already used, or its challenge is closed', i + T),
    ...forget(i + T),
    `${i}${T}reject`,
    `${i}}`,
  ]
}

const CODE_SHAPE = /^[0-9]{6}$/.source

/** Both modes in one tree: some clients take the code appended (radius.mfa_append_device_groups). */
const mixed = (m: FreeradiusMfa): boolean => m.mode === 'challenge' && (m.appendClients?.length ?? 0) > 0

/** `append` and `challenge` text chosen per client when the tree has both, else the one mode's. */
function byClient(m: FreeradiusMfa, body: (mode: FreeradiusMfa['mode'], i: string) => string[]): string[] {
  if (!mixed(m)) return body(m.mode, '')
  return [`if ("%{client:${MFA_CLIENT_ITEM}}" == "append") {`, ...body('append', T), '}', 'else {', ...body('challenge', T), '}']
}

/** The client item naming the client's mode (clients.conf), read by the site when the tree has both modes. */
export const MFA_CLIENT_ITEM = 'portcullis_mfa'

/** The lines a client block gets (indent `T`): its mode, only when the tree has both. */
export function mfaClientLines(m: FreeradiusMfa | null | undefined, client: string): string[] {
  if (!m || !mixed(m)) return []
  const mode = m.appendClients!.includes(client) ? 'append' : 'challenge'
  return [`${T}# The second factor: ${mode === 'append' ? 'the code follows the password (radius.mfa_append_device_groups)' : 'an Access-Challenge for the code'}.`, `${T}${MFA_CLIENT_ITEM} = "${mode}"`]
}

/**
 * The devices of the groups listed in radius.mfa_append_device_groups or below them (a group's
 * members are members of its ancestors). An id naming no group refuses the render: the setting
 * must be corrected, not silently half-applied.
 */
export function appendClientsOf(groupIds: readonly string[], groups: readonly { id: string; parent_id: string | null }[], devices: readonly { name: string; device_group_id: string | null }[]): string[] {
  if (groupIds.length === 0) return []
  const parent = new Map(groups.map((g) => [g.id, g.parent_id]))
  const missing = groupIds.filter((id) => !parent.has(id))
  if (missing.length) throw new FreeradiusRenderError(`setting radius.mfa_append_device_groups names device groups that do not exist (${missing.join(', ')}): remove them from the setting`)
  const listed = new Set(groupIds)
  const inListed = new Map<string, boolean>()
  const isIn = (id: string): boolean => {
    const known = inListed.get(id)
    if (known !== undefined) return known
    inListed.set(id, false) // a cycle (never stored) ends here
    const p = parent.get(id) ?? null
    const r = listed.has(id) || (p !== null && isIn(p))
    inListed.set(id, r)
    return r
  }
  return devices.filter((d) => d.device_group_id !== null && isIn(d.device_group_id)).map((d) => d.name)
}

/**
 * portcullis/mfa-authorize (the end of authorize): the answer to one of our challenges (a State,
 * the code in User-Password) is checked in Auth-Type PAP (portcullis/mfa-pap), whatever method
 * the user's password takes otherwise. For local users PAP is picked anyway; a method of its own
 * for some users (a directory's Auth-Type LDAP) would try the code as the password.
 */
export function mfaAuthorize(m: FreeradiusMfa | null): string {
  const out = [HEADER, '# The answer to a second-factor challenge goes to Auth-Type PAP (renderers/mfa.ts).']
  if (!m || m.mode !== 'challenge') return [...out, '# No challenge is sent: nothing to route.', ''].join('\n')
  return [
    ...out,
    'if (&State && &User-Password && !&CHAP-Password && !&MS-CHAP-Challenge) {',
    ...lines(T, ['update control {', `${T}&Auth-Type := PAP`, '}']),
    '}',
    '',
  ].join('\n')
}

/**
 * portcullis/mfa-post-auth (the start of post-auth): an Access-Accept whose password section never
 * decided the second factor is refused. Every password section ends with mfa-password, so this
 * holds only for a section added without it: such a section fails closed instead of letting users
 * with MFA in with the password alone.
 */
export function mfaPostAuth(m: FreeradiusMfa | null): string {
  const out = [HEADER, '# Fail closed: an accept the second factor did not decide is refused (renderers/mfa.ts).']
  if (!m) return [...out, '# Off: the password alone.', ''].join('\n')
  return [
    ...out,
    `if (&Packet-Type == Access-Request && !&control:${DECIDED}) {`,
    ...refusal('mfa_not_checked', 'the password was checked by a method that does not ask for the second factor (no mfa-password include): refused', T),
    `${T}reject`,
    '}',
    '',
  ].join('\n')
}

/** portcullis/mfa-password (authenticate, after a password check that passed: CHAP, MS-CHAP, PAP). */
export function mfaAfterPassword(m: FreeradiusMfa | null): string {
  const out = [HEADER, '# After the password passed: the second factor (radius.mfa_mode; renderers/mfa.ts).']
  if (!m) return [...out, '# Off: the password alone.', 'ok', ''].join('\n')
  const body = (mode: FreeradiusMfa['mode'], i: string) => {
    const j = i + T
    // No code in this request: a push where the user has a device. In challenge mode the
    // Access-Challenge shows its number (number matching), and the answer waits for it.
    const then =
      mode === 'challenge'
        ? [`${j}if (&control:${PUSH}) {`, ...pushStart(m, j + T), `${j}}`, `${j}else {`, ...challengeReply(j + T, ASK), `${j}}`]
        : [
            `${j}if (&control:${PUSH}) {`,
            ...push(m, j + T),
            `${j}}`,
            `${j}else {`,
            ...refusal('mfa_required', 'this user has MFA: the password must be followed by the 6-digit code (radius.mfa_mode append), or approved on the phone, which CHAP and MS-CHAP cannot carry', j + T),
            `${j}${T}reject`,
            `${j}}`,
          ]
    return check(m, i, then)
  }
  return [...out, ...byClient(m, body), ''].join('\n')
}

/** portcullis/mfa-pap (authenticate, Auth-Type PAP): the password, then the code as the mode says. */
export function mfaPap(m: FreeradiusMfa | null): string {
  const out = [HEADER, '# PAP and the second factor (radius.mfa_mode; renderers/mfa.ts).']
  if (!m) return [...out, 'pap', ''].join('\n')
  return [...out, ...byClient(m, (mode, i) => (mode === 'challenge' ? challengePap(m, i) : appendPap(m, i))), ''].join('\n')
}

function challengePap(m: FreeradiusMfa, i: string): string[] {
  return [
    `${i}# The answer to a challenge: the code in User-Password, the challenge in State.`,
    `${i}if (&State) {`,
    // The code's shape is tested first: a regex sets the captures (%{1}) the last one matched.
    `${i}${T}if (&User-Password && &User-Password =~ /${CODE_SHAPE}/ && &State =~ /^0x([0-9a-f]{32})([0-9a-f]{32})?$/) {`,
    ...lines(i + T + T, ['update control {', `${T}&${CHALLENGE} := "%{1}"`, `${T}&${CODE} := "%{User-Password}"`, '}']),
    ...verify(m, i + T + T, 'challenge'),
    `${i}${T}}`,
    // Anything else than a code, after the number was shown: the wait for that push.
    `${i}${T}elsif (&State =~ /${PUSH_STATE}/) {`,
    ...lines(i + T + T, ['update control {', `${T}&${CHALLENGE} := "%{1}"`, `${T}&${CODE} := "%{2}-%{3}-%{4}-%{5}-%{6}"`, '}']),
    ...push(m, i + T + T, 'portcullis_mfa_push_wait'),
    `${i}${T}}`,
    // After a wrong code the State holds the challenge alone: anything but a code sends a push then.
    `${i}${T}elsif (&State =~ /^0x([0-9a-f]{32})$/) {`,
    ...lines(i + T + T, ['update control {', `${T}&${CHALLENGE} := "%{1}"`, '}']),
    ...push(m, i + T + T),
    `${i}${T}}`,
    `${i}${T}else {`,
    ...refusal('mfa_bad_code', 'the answer to the challenge is not a 6-digit code, or the State is not one of ours', i + T + T),
    `${i}${T}${T}reject`,
    `${i}${T}}`,
    `${i}}`,
    `${i}else {`,
    `${i}${T}pap`,
    `${i}${T}$INCLUDE mfa-password`,
    `${i}}`,
  ]
}

/** append: the whole User-Password as the password first (no MFA, or a password ending in digits). */
function appendPap(m: FreeradiusMfa, i: string): string[] {
  return [
    `${i}pap {`,
    `${i}${T}reject = 1`,
    `${i}}`,
    `${i}if (ok) {`,
    `${i}${T}$INCLUDE mfa-password`,
    `${i}}`,
    `${i}elsif (&User-Password && &User-Password =~ /^(.+)([0-9]{6})$/) {`,
    ...lines(i + T, ['update control {', `${T}&${CODE} := "%{2}"`, '}']),
    ...lines(i + T, ['update request {', `${T}&User-Password := "%{1}"`, '}']),
    `${i}${T}pap`,
    // A user without MFA who typed digits after the right password typed a wrong password.
    ...check(m, i + T, verify(m, i + T + T, 'append'), [...refusal('wrong_password', 'the password followed by a code was given, but this user has no MFA', i + T), `${i}${T}reject`]),
    `${i}}`,
    `${i}else {`,
    `${i}${T}reject`,
    `${i}}`,
  ]
}
