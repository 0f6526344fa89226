/**
 * The virtual server (`sites-enabled/default`) and the MS-CHAPv1 gate
 * (`portcullis/mschapv1`). What every reply gets, checked with radclient
 * against FreeRADIUS 3.2.1 (test/e2e-freeradius.test.ts):
 *
 * - Message-Authenticator first (BlastRADIUS guidance; 3.2.1 signs a reply only
 *   when the reply list holds one, and encodes the list in order): added first
 *   thing in authorize, when the reply list is still empty, so everything after
 *   is appended behind it and a packet too full drops attributes, never it;
 * - Proxy-State echoed in accepts and rejects (RFC 2865 §5.33): FreeRADIUS copies
 *   it into the reply before post-auth, so the reject path, which empties the
 *   reply of any profile attribute, copies it back;
 * - Status-Server (RFC 5997) answered with an Access-Accept on the auth port, for
 *   monitoring (`radclient … status`), from configured clients only.
 */
import type { CompiledRule } from './policy.js'
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { byteOrder, HEADER, qname, refusal, T } from './syntax.js'

export const SITE = `${HEADER}
# Device administration: PAP and MS-CHAPv2 against the platform's verifiers, CHAP for users
# with chap_enabled (their kept cleartext password), MS-CHAPv1 where a profile allows it,
# the AAA policy, JSON lines.
authorize {
${T}# Message-Authenticator first in every reply: the reply list is empty here, and the rest is appended behind it.
${T}update reply {
${T}${T}&Message-Authenticator := 0x00
${T}}
${T}# 802.1X and MAB: handled there (with a return), else on to device administration (renderers/nac-site.ts).
${T}$INCLUDE ../portcullis/nac-authorize
${T}# The method, named here rather than by the modules, so that a request rejected before it is
${T}# authenticated is logged with its method too, and MS-CHAPv1 as MS-CHAPv1.
${T}if (&CHAP-Password) {
${T}${T}update control {
${T}${T}${T}&Auth-Type := CHAP
${T}${T}}
${T}}
${T}elsif (&MS-CHAP-Challenge && &MS-CHAP2-Response) {
${T}${T}update control {
${T}${T}${T}&Auth-Type := MS-CHAP
${T}${T}}
${T}}
${T}elsif (&MS-CHAP-Challenge && &MS-CHAP-Response) {
${T}${T}update control {
${T}${T}${T}&Auth-Type := MS-CHAPv1
${T}${T}}
${T}}
${T}elsif (&User-Password) {
${T}${T}update control {
${T}${T}${T}&Auth-Type := PAP
${T}${T}}
${T}}
${T}$INCLUDE ../portcullis/login
${T}# Directory users: the directory finds them and checks the password (portcullis/directory).
${T}$INCLUDE ../portcullis/directory
${T}# Unknown, disabled, network login off: rejected with the reason, before any rule is tried.
${T}if (!&control:Crypt-Password && !&control:LDAP-UserDn) {
${T}${T}$INCLUDE ../portcullis/refused
${T}}
${T}if (&CHAP-Password && !&control:Cleartext-Password) {
${refusal('chap_not_kept', 'CHAP is not supported for this user: it needs the cleartext password, which the platform keeps only with chap_enabled', T + T).join('\n')}
${T}${T}reject
${T}}
${T}$INCLUDE ../portcullis/policy
${T}if (&control:Auth-Type && &control:Auth-Type == MS-CHAPv1) {
${T}${T}$INCLUDE ../portcullis/mschapv1
${T}}
${T}# The answer to a second-factor challenge is checked in Auth-Type PAP (renderers/mfa.ts).
${T}$INCLUDE ../portcullis/mfa-authorize

${T}# Status-Server (RFC 5997): runs this section alone, and answers Access-Accept when it returns ok.
${T}Autz-Type Status-Server {
${T}${T}update reply {
${T}${T}${T}&Message-Authenticator := 0x00
${T}${T}}
${T}${T}ok
${T}}
}

authenticate {
${T}# The password, then the second factor where radius.mfa_mode and the user say (renderers/mfa.ts).
${T}Auth-Type PAP {
${T}${T}$INCLUDE ../portcullis/mfa-pap
${T}}
${T}Auth-Type CHAP {
${T}${T}chap
${T}${T}$INCLUDE ../portcullis/mfa-password
${T}}
${T}Auth-Type MS-CHAP {
${T}${T}mschap
${T}${T}$INCLUDE ../portcullis/mfa-password
${T}}
${T}# The same module: a section of its own gives the method its own name in the log.
${T}Auth-Type MS-CHAPv1 {
${T}${T}mschap
${T}${T}$INCLUDE ../portcullis/mfa-password
${T}}
${T}$INCLUDE ../portcullis/directory-authenticate
${T}$INCLUDE ../portcullis/nac-authenticate
}

preacct {
}

accounting {
${T}portcullis_log_acct
${T}ok
}

post-auth {
${T}# 802.1X and MAB: the NAC policy decides and logs, then returns (renderers/nac-site.ts).
${T}$INCLUDE ../portcullis/nac-post-auth
${T}# Fail closed: an accept the second factor did not decide (renderers/mfa.ts).
${T}$INCLUDE ../portcullis/mfa-post-auth
${T}# Each permitting rule's RADIUS profile, by a hashed lookup on the rule's name (portcullis/replies).
${T}portcullis_replies
${T}$INCLUDE ../portcullis/lockout-passed
${T}portcullis_log_auth

${T}# An Access-Challenge for the second factor (portcullis/mfa-*): no profile yet, nothing logged.
${T}Post-Auth-Type Challenge {
${T}${T}ok
${T}}

${T}Post-Auth-Type REJECT {
${T}${T}# A reject carries nothing of a profile (nor MS-CHAP leftovers): Message-Authenticator first, then the Proxy-State the request brought.
${T}${T}update {
${T}${T}${T}&reply: !* ANY
${T}${T}}
${T}${T}update reply {
${T}${T}${T}&Message-Authenticator := 0x00
${T}${T}${T}&Proxy-State += &request:Proxy-State[*]
${T}${T}}
${T}${T}# 802.1X and MAB: the reason, EAP-Failure and the log line, then return (renderers/nac-site.ts).
${T}${T}$INCLUDE ../portcullis/nac-reject
${T}${T}# Why, when no reject point above said: the password check failed, or nothing was there to check.
${T}${T}if (!&control:${CONTROL_ATTRIBUTES.rejectReason}) {
${T}${T}${T}if (&control:Auth-Type) {
${T}${T}${T}${T}update control {
${T}${T}${T}${T}${T}&${CONTROL_ATTRIBUTES.rejectReason} := "wrong_password"
${T}${T}${T}${T}}
${T}${T}${T}}
${T}${T}${T}else {
${T}${T}${T}${T}update control {
${T}${T}${T}${T}${T}&${CONTROL_ATTRIBUTES.rejectReason} := "no_credentials"
${T}${T}${T}${T}}
${T}${T}${T}}
${T}${T}}
${T}${T}$INCLUDE ../portcullis/lockout-failed
${T}${T}portcullis_log_auth
${T}}
}
`

/**
 * Included for an MS-CHAPv1 request after the policy matched a rule with a RADIUS profile
 * (control:Tmp-String-1, the label): accepted for profiles with allow_mschapv1, else rejected.
 */
export function mschapv1(rules: CompiledRule[]): string {
  const allowed = [...new Set(rules.filter((c) => !c.skipped && c.profile?.allow_mschapv1).map((c) => c.profile!.name))].sort(byteOrder)
  const out = [HEADER, '# MS-CHAPv1 (RFC 2433) only for the RADIUS profiles that allow it (allow_mschapv1).', 'switch &control:Tmp-String-1 {']
  for (const p of allowed) out.push(`${T}case ${qname(p, 'RADIUS profile')} {`, `${T}${T}noop`, `${T}}`)
  out.push(
    `${T}case {`,
    ...refusal('mschapv1_refused', 'MS-CHAPv1 is refused: the RADIUS profile of the matching rule does not allow it (allow_mschapv1)', T + T),
    `${T}${T}reject`,
    `${T}}`,
    '}',
    '',
  )
  return out.join('\n')
}
