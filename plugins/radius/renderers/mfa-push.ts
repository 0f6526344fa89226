/**
 * The push on FreeRADIUS (renderers/mfa.ts): a push to the user's phone sent and waited for in the
 * request (append mode, a push-only user), or sent with number matching and the number shown in
 * an Access-Challenge (challenge mode). Only an approval passes; every other end rejects with its
 * reason (mfa_push_denied, _timeout, _unavailable, _locked) in the log.
 */
import { ALL_CONTINUE, ASK, BODY, CHALLENGE, challengeReply, decided, forget, keyHeader, lines, OUTCOME, STATUS, TOTP, type FreeradiusMfa } from './mfa-parts.js'
import { refusal, T } from './syntax.js'

/**
 * A push to the user's phone for the challenge in control:Tmp-String-8, waited for in this request:
 * only an approval passes. Every other end rejects with its reason in the log (reject_reason and
 * the message naming the outcome).
 */
// A message expanded at run time (the platform's answer, never the user's input) goes in after the quoting.
const why = (code: Parameters<typeof refusal>[0], message: string, j: string) => [
  ...refusal(code, 'MESSAGE', j).map((l) => l.replace('"MESSAGE"', `"${message.replace(/"/g, '\\"')}"`)),
  ...forget(j),
  `${j}reject`,
]

/** The refusal for each way a push ends but the approval (the outcome in the body: {"outcome":"..."}). */
function pushRefused(j: string): string[] {
  const O = `&control:${OUTCOME}`
  return [
    // Matched again, positively: the capture of a negated match is not relied upon.
    `${j}if (&${BODY} =~ /"outcome":"([a-z_]+)"/) {`,
    ...lines(j + T, ['update control {', `${T}&${OUTCOME} := "%{1}"`, '}']),
    `${j}}`,
    `${j}if (${O} == "timeout" || ${O} == "expired") {`,
    ...why('mfa_push_timeout', 'the push was not answered in time (setting mfa.push_timeout_seconds); refused', j + T),
    `${j}}`,
    `${j}elsif (${O} == "unavailable") {`,
    ...why('mfa_push_unavailable', 'the push could not be sent: the push service is down or not configured; refused', j + T),
    `${j}}`,
    `${j}elsif (${O} == "no_device") {`,
    ...why('mfa_bad_code', 'no 6-digit code was given and the user has no push device; refused', j + T),
    `${j}}`,
    `${j}elsif (${O} == "locked") {`,
    ...why('mfa_push_locked', 'pushes are locked for this user since they reported a sign-in they did not start (cleared in My account or by an administrator); refused', j + T),
    `${j}}`,
    `${j}elsif (${O} == "rate_limited") {`,
    ...why('mfa_rate_limited', 'too many pushes for this user: the platform refused to send more for now', j + T),
    `${j}}`,
    `${j}else {`,
    ...why('mfa_push_denied', `the push was not approved: %{control:${OUTCOME}}; refused`, j + T),
    `${j}}`,
  ]
}

/**
 * `module` (portcullis_mfa_push: a push sent and waited for; portcullis_mfa_push_wait: the push
 * the challenge sent, waited for) and its verdict: only an approval passes.
 */
export function push(m: FreeradiusMfa, i: string, module = 'portcullis_mfa_push'): string[] {
  return [
    ...keyHeader(m, i),
    `${i}${module}.authorize {`,
    ...lines(i + T, ALL_CONTINUE),
    `${i}}`,
    `${i}if (!&${STATUS} || &${STATUS} != 200) {`,
    ...why('mfa_push_unavailable', `the push could not be sent: the platform's MFA surface (server option mfa.internal_url) answered %{%{${STATUS}}:-nothing}; refused`, i + T),
    `${i}}`,
    `${i}elsif (&${BODY} && &${BODY} =~ /"approved":true,"outcome":"approved"/) {`,
    ...forget(i + T),
    ...decided(i + T),
    `${i}${T}ok`,
    `${i}}`,
    `${i}elsif (!&${BODY} || &${BODY} !~ /"outcome":"([a-z_]+)"/) {`,
    ...why('mfa_push_unavailable', 'the push could not be checked: the platform\'s answer is not one of the MFA surface\'s; refused', i + T),
    `${i}}`,
    `${i}else {`,
    ...pushRefused(i + T),
    `${i}}`,
  ]
}

/** The push's id in a State after the challenge: 32 hex digits, then the id's 32 without its dashes. */
export const PUSH_STATE = /^0x([0-9a-f]{32})([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.source

/**
 * Challenge mode, a user with a push device: the push sent with number matching, and an
 * Access-Challenge showing the number (the State carries the challenge and the push's id); the
 * answer waits for the approval, or is a code (mfaPap). No push sent (the push service down,
 * locked, too many): a user with an authenticator is asked for the code instead, one without is
 * refused with the reason.
 */
export function pushStart(m: FreeradiusMfa, i: string): string[] {
  const j = i + T
  const totpInstead = [...forget(j), ...challengeReply(j, ASK)]
  const msg = (tail: string) => `"Approve the sign-in on your phone and enter %{control:${OUTCOME}} there, ${tail}"`
  return [
    ...keyHeader(m, i),
    `${i}portcullis_mfa_push_start.authorize {`,
    ...lines(j, ALL_CONTINUE),
    `${i}}`,
    `${i}if ((!&${STATUS} || &${STATUS} != 200) && &control:${TOTP}) {`,
    ...totpInstead,
    `${i}}`,
    `${i}elsif (!&${STATUS} || &${STATUS} != 200) {`,
    ...why('mfa_push_unavailable', `the push could not be sent: the platform's MFA surface (server option mfa.internal_url) answered %{%{${STATUS}}:-nothing}; refused`, j),
    `${i}}`,
    `${i}elsif (&${BODY} && &${BODY} =~ /"sent":true/ && &${BODY} =~ /"number":"([0-9]{2})"/) {`,
    ...lines(j, ['update control {', `${T}&${OUTCOME} := "%{1}"`, '}']),
    `${j}if (&${BODY} =~ /"push_challenge":"([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})"/) {`,
    ...lines(j + T, ['update reply {', `${T}&State := "0x%{control:${CHALLENGE}}%{1}%{2}%{3}%{4}%{5}"`, '}']),
    `${j}}`,
    ...forget(j),
    `${j}if (&control:${TOTP}) {`,
    ...lines(j + T, ['update reply {', `${T}&Reply-Message := ${msg('then type ok here; or type the code from your authenticator app:')}`, '}']),
    `${j}}`,
    `${j}else {`,
    // An empty answer is no answer to FreeRADIUS (no User-Password): the user types something.
    ...lines(j + T, ['update reply {', `${T}&Reply-Message := ${msg('then type ok here:')}`, '}']),
    `${j}}`,
    ...lines(j, ['update control {', `${T}&Response-Packet-Type := Access-Challenge`, '}']),
    `${j}handled`,
    `${i}}`,
    `${i}elsif (&control:${TOTP}) {`,
    ...totpInstead,
    `${i}}`,
    `${i}elsif (!&${BODY} || &${BODY} !~ /"outcome":"([a-z_]+)"/) {`,
    ...why('mfa_push_unavailable', 'the push could not be sent: the platform\'s answer is not one of the MFA surface\'s; refused', j),
    `${i}}`,
    `${i}else {`,
    ...pushRefused(j),
    `${i}}`,
  ]
}
