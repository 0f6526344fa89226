/**
 * The unlang every part of the FreeRADIUS second factor shares (renderers/mfa.ts, mfa-push.ts):
 * the settings it renders from, the control attributes it keeps its state in, the REST call's key
 * header and clean-up, and the replies (an Access-Challenge, the fail-closed refusal).
 */
import { FreeradiusRenderError, refusal, T } from './syntax.js'

export const RADIUS_MFA_MODES = ['challenge', 'append', 'off'] as const
export type RadiusMfaMode = (typeof RADIUS_MFA_MODES)[number]

export interface FreeradiusMfa {
  /** Setting radius.mfa_mode: every client's mode, but those in `appendClients`. */
  mode: Exclude<RadiusMfaMode, 'off'>
  /**
   * While the mode is `challenge`: the clients (device names) that take the password followed by
   * the code instead, being in a device group of setting radius.mfa_append_device_groups (or below
   * one). Each client then carries `portcullis_mfa` and the site reads it (%{client:...}): one
   * comparison a request, whatever the number of devices.
   */
  appendClients?: string[]
  /** Server option mfa.internal_url (scheme, host, port). */
  baseUrl: string
  key: string
  checkPath: string
  verifyPath: string
  pushPath: string
}

/** control:Tmp-String-8 the challenge, -9 the code, -7 the attempts left (the policy uses -0 to -6). */
export const CHALLENGE = 'Tmp-String-8'
export const CODE = 'Tmp-String-9'
/** control:Tmp-Integer-1: the user has a push device; -2: an authenticator (the check's `factors`). */
export const PUSH = 'Tmp-Integer-1'
export const TOTP = 'Tmp-Integer-2'
/** control:Tmp-String-7 also carries the push's outcome, for the log's message. */
export const OUTCOME = 'Tmp-String-7'
/** control:Tmp-Integer-3: the second factor was decided for this request (owed and given, or not owed). */
export const DECIDED = 'Tmp-Integer-3'
export const decided = (i: string) => lines(i, ['update control {', `${T}&${DECIDED} := 1`, '}'])
export const STATUS = 'reply:REST-HTTP-Status-Code'
export const BODY = 'reply:REST-HTTP-Body'
/** The key as a single-quoted literal: never expanded at run time. */
export function qkey(key: string): string {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new FreeradiusRenderError('setting mfa.internal_key holds a control character')
  return `'X-Internal-Key: ${key.replace(/[\\']/g, (c) => '\\' + c)}'`
}

/** Every module return code continues: the HTTP status decides, below. */
export const ALL_CONTINUE = ['reject', 'fail', 'ok', 'handled', 'invalid', 'userlock', 'notfound', 'noop', 'updated'].map((r) => `${r} = 1`)

export const lines = (indent: string, xs: string[]) => xs.map((x) => indent + x)

/** The key header, set right before each call (rlm_rest consumes it). */
export const keyHeader = (m: FreeradiusMfa, i: string) => lines(i, ['update control {', `${T}&REST-HTTP-Header := ${qkey(m.key)}`, '}'])

export const forget = (i: string) => lines(i, ['update reply {', `${T}&REST-HTTP-Body !* ANY`, `${T}&REST-HTTP-Status-Code !* ANY`, '}'])

export function unavailable(i: string): string[] {
  return [
    // The message names the HTTP status, expanded at run time (the platform's answer, not the user's input).
    ...refusal('mfa_unavailable', 'MFA_UNAVAILABLE', i).map((l) =>
      l.replace('"MFA_UNAVAILABLE"', `"the second factor could not be checked: the platform's MFA surface (server option mfa.internal_url) answered %{%{${STATUS}}:-nothing}; refused"`),
    ),
    ...forget(i),
    `${i}reject`,
  ]
}

export function challengeReply(i: string, message: string): string[] {
  return [
    ...lines(i, ['update reply {', `${T}&State := "0x%{control:${CHALLENGE}}"`, `${T}&Reply-Message := ${message}`, '}']),
    ...lines(i, ['update control {', `${T}&Response-Packet-Type := Access-Challenge`, '}']),
    `${i}handled`,
  ]
}

export const ASK = '"Enter the code from your authenticator app:"'
