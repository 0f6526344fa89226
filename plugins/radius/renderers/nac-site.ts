/**
 * 802.1X and MAB in the default virtual server (renderers/site.ts includes these files; without a
 * registered NacPolicySource they hold comments only, and device administration runs as before):
 *
 *   portcullis/nac-authorize     first in authorize: the Calling-Station-Id in canonical form, then
 *                                EAP (an EAP-Message) to the eap module, or MAB, else nothing (device administration)
 *   portcullis/nac-authenticate  Auth-Type eap
 *   portcullis/nac-post-auth     first in post-auth: for NAC requests the method, the user and groups,
 *                                the NAC policy (portcullis/nac-policy), the log line; then `return`
 *   portcullis/nac-reject        in Post-Auth-Type REJECT: the reason, EAP-Failure, the log line
 *
 * MAB: no EAP-Message, a MAC in Calling-Station-Id, and User-Name the same MAC in any common notation
 * (or Service-Type Call-Check). No MAC is a password: Auth-Type Accept, and the NAC policy decides
 * (the endpoint's groups and type come from portcullis/nac-endpoints; an unknown MAC has none).
 */
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import type { FreeradiusNac } from './nac-input.js'
import { NAC_ATTRIBUTES as N } from './nac-attributes.js'
import { EAP_OFF } from './nac-eap.js'
import { expirationRefusal, HEADER, refusal, T } from './syntax.js'

const OFF = '# No NAC policy source is registered: 802.1X and MAB are not served here.\n'
const PAIR = '([0-9a-f]{2})'
/** A MAC in the notations switches send: aa:bb:cc:dd:ee:ff, AA-BB-…, aabb.ccdd.eeff, aabbccddeeff. */
const MAC_RE = `/^${Array(6).fill(PAIR).join('[-:.]?')}$/i`
const CANONICAL = '"%{tolower:%{1}:%{2}:%{3}:%{4}:%{5}:%{6}}"'
const R = CONTROL_ATTRIBUTES.rejectReason

export function nacAuthorize(nac: FreeradiusNac | null): string {
  if (!nac) return `${HEADER}\n${OFF}`
  return [
    HEADER,
    '# 802.1X and MAB (renderers/nac-site.ts); any other request goes on to device administration.',
    `if (&Calling-Station-Id && &Calling-Station-Id =~ ${MAC_RE}) {`,
    `${T}update control {`,
    `${T}${T}&${N.mac} := ${CANONICAL}`,
    `${T}}`,
    '}',
    'if (&EAP-Message) {',
    `${T}update control {`,
    `${T}${T}&${N.method} := "eap"`,
    `${T}}`,
    `${T}portcullis_nac_endpoints`,
    `${T}portcullis_nac_clients`,
    // No `ok = return` on the module: it would leave this block only, and device administration would follow.
    ...(nac.eap ? [`${T}eap`, `${T}return`] : EAP_OFF),
    '}',
    `if (&control:${N.mac}) {`,
    `${T}if (&Service-Type && &Service-Type == Call-Check) {`,
    `${T}${T}update control {`,
    `${T}${T}${T}&${N.method} := "mab"`,
    `${T}${T}}`,
    `${T}}`,
    `${T}elsif (&User-Name && &User-Name =~ ${MAC_RE}) {`,
    `${T}${T}if (${CANONICAL} == "%{control:${N.mac}}") {`,
    `${T}${T}${T}update control {`,
    `${T}${T}${T}${T}&${N.method} := "mab"`,
    `${T}${T}${T}}`,
    `${T}${T}}`,
    `${T}}`,
    '}',
    `if (&control:${N.method} && &control:${N.method} == "mab") {`,
    `${T}# MAB: the MAC is no password; the NAC policy decides in post-auth.`,
    `${T}update control {`,
    `${T}${T}&Auth-Type := Accept`,
    `${T}}`,
    `${T}portcullis_nac_endpoints`,
    `${T}portcullis_nac_clients`,
    `${T}ok`,
    `${T}return`,
    '}',
    '',
  ].join('\n')
}

export function nacAuthenticate(nac: FreeradiusNac | null): string {
  if (!nac?.eap) return `${HEADER}\n${nac ? '# No eap module (server options radius.eap_certificate_file, radius.eap_private_key_file unset): MAB only.\n' : OFF}`
  return `${HEADER}\n# 802.1X (renderers/nac-site.ts).\nAuth-Type eap {\n${T}eap\n}\n`
}

/** The EAP method of the request (the last round's EAP-Type) as the NAC policy names it. */
const METHOD = [
  `if (&control:${N.method} == "eap") {`,
  `${T}if (&EAP-Type && &EAP-Type == PEAP) {`,
  `${T}${T}update control {`,
  `${T}${T}${T}&${N.method} := "peap"`,
  `${T}${T}}`,
  `${T}}`,
  `${T}elsif (&EAP-Type && &EAP-Type == EAP-TLS) {`,
  `${T}${T}update control {`,
  `${T}${T}${T}&${N.method} := "eap-tls"`,
  `${T}${T}}`,
  `${T}}`,
  '}',
]

/**
 * The account of the user an 802.1X request names (nac-users, by the lower-cased name): refused before
 * the policy when disabled, network login off or expired, with the reasons and log codes of PEAP's
 * inner tunnel (nac-eap.ts), which already refused these for PEAP: here they hold for EAP-TLS too.
 */
const ACCOUNT = [
  `portcullis_nac_users.authorize`,
  `if (&control:${N.account}) {`,
  `${T}if (&control:${N.account} == "disabled") {`,
  ...refusal('disabled', 'the user is disabled', T + T),
  `${T}}`,
  `${T}else {`,
  ...refusal('network_login_off', 'network login is off for this user', T + T),
  `${T}}`,
  `${T}reject`,
  '}',
  ...expirationRefusal('# Expiry (users.expires_at): refused from that second on.', 'expiration.authorize'),
  '# The module set a Session-Timeout: the one of the accept is set after the policy, which may give its own.',
  'update reply {',
  `${T}&Session-Timeout !* ANY`,
  '}',
]

export function nacPostAuth(nac: FreeradiusNac | null): string {
  if (!nac) return `${HEADER}\n${OFF}`
  return [
    HEADER,
    '# 802.1X and MAB (renderers/nac-site.ts): the NAC policy decides, not the AAA policy.',
    `if (&control:${N.method}) {`,
    ...METHOD.map((l) => T + l),
    `${T}if (&control:${N.method} == "peap") {`,
    `${T}${T}# The inner tunnel's user (sites-enabled/portcullis-inner), who passed its account checks there.`,
    `${T}${T}update control {`,
    `${T}${T}${T}&${N.user} := &session-state:${N.user}`,
    `${T}${T}}`,
    `${T}}`,
    `${T}elsif (&control:${N.method} == "eap-tls") {`,
    `${T}${T}# Its issuer must be a CA of settings pki.freeradius_ca_id / pki.freeradius_extra_ca_ids itself, not a CA above it (written by the pki plugin with the trust file).`,
    `${T}${T}$-INCLUDE \${confdir}/certs/portcullis/eap-issuer`,
    `${T}${T}# A Common-Name naming a user (any case) is that user's login; any other certificate is a device's: no user.`,
    `${T}${T}if (&TLS-Client-Cert-Common-Name) {`,
    `${T}${T}${T}update control {`,
    `${T}${T}${T}${T}&${N.user} := &TLS-Client-Cert-Common-Name`,
    `${T}${T}${T}}`,
    `${T}${T}}`,
    `${T}}`,
    `${T}elsif (&control:${N.method} != "mab") {`,
    `${T}${T}update control {`,
    `${T}${T}${T}&${R} := "eap_failed"`,
    `${T}${T}}`,
    `${T}${T}reject`,
    `${T}}`,
    `${T}# The user's groups and account: refused before the policy when disabled, network login off or expired.`,
    `${T}if (&control:${N.user}) {`,
    ...ACCOUNT.map((l) => T + T + l),
    `${T}}`,
    `${T}$INCLUDE nac-policy`,
    ...expirationRefusal(`# The accept of a user with an expiry: Session-Timeout at most the seconds left (the profile's own, if shorter, stays).`, 'expiration.authorize').map((l) => T + l),
    `${T}portcullis_log_auth`,
    `${T}return`,
    '}',
    '',
  ].join('\n')
}

export function nacReject(nac: FreeradiusNac | null): string {
  if (!nac) return `${HEADER}\n${OFF}`
  return [
    HEADER,
    '# 802.1X and MAB rejected (renderers/nac-site.ts): the reason, EAP-Failure, the log line.',
    `if (&control:${N.method}) {`,
    ...METHOD.map((l) => T + l),
    `${T}if (!&control:${R}) {`,
    `${T}${T}if (&session-state:${R}) {`,
    `${T}${T}${T}update control {`,
    `${T}${T}${T}${T}&${R} := &session-state:${R}`,
    `${T}${T}${T}}`,
    `${T}${T}}`,
    `${T}${T}else {`,
    `${T}${T}${T}update control {`,
    `${T}${T}${T}${T}&${R} := "eap_failed"`,
    `${T}${T}${T}}`,
    `${T}${T}}`,
    `${T}}`,
    `${T}if (&session-state:${N.user}) {`,
    `${T}${T}update control {`,
    `${T}${T}${T}&${N.user} := &session-state:${N.user}`,
    `${T}${T}}`,
    `${T}}`,
    ...(nac.eap ? [`${T}if (&EAP-Message) {`, `${T}${T}eap`, `${T}}`] : []),
    `${T}portcullis_log_auth`,
    `${T}return`,
    '}',
    '',
  ].join('\n')
}
