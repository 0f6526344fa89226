/**
 * The NAC policy as the FreeRADIUS renderer and the policy test see it: one
 * compiled form, made once by the nac plugin from its tables. The renderer
 * writes it as unlang; the policy test evaluates it in JavaScript
 * (`evaluateNacPolicy`, in the nac plugin). Because both read this one
 * structure, the test answers what the deployed daemon does.
 *
 * The nac plugin hands its source to the radius plugin through the radius
 * plugin's `registerNacPolicySource` (as the AAA policy hands over its rules),
 * so the radius plugin never depends on the nac plugin.
 */
import type { Knex } from 'knex'
import type { PolicyTimeWindow } from './policy.js'
import { phrase, type Phrase } from './say.js'

/** How the endpoint authenticated. */
export type NacMethod = 'peap' | 'eap-tls' | 'mab'

/**
 * One condition of a NAC rule. A rule holds when every one of its conditions holds; a condition
 * listing several values holds when any of them does. Names are resolved for the explain trace and
 * the rendered comments; ids are what is compared.
 */
export type NacCondition =
  | { type: 'method'; methods: readonly NacMethod[] }
  /** The authenticated user (PEAP inner identity, EAP-TLS certificate's user) is a member (directly or through nesting) of one of these user groups. */
  | { type: 'user_group'; groups: readonly { id: string; name: string }[] }
  /** The endpoint (by Calling-Station-Id) is in one of these endpoint groups. */
  | { type: 'endpoint_group'; groups: readonly { id: string; name: string }[] }
  /** Profiling placed the endpoint as one of these device types. */
  | { type: 'device_type'; device_types: readonly string[] }
  /** The switch (the RADIUS client) is in one of these device groups (or below one of them). */
  | { type: 'device_group'; groups: readonly { id: string; name: string }[] }
  /**
   * EAP-TLS: a field of the client certificate, compared for equality, ASCII letters case-insensitively
   * (certificateValueMatches); a SAN type the certificate carries several of holds when any of them
   * equals a value. `issuer_cn` is the Common-Name of the CA that signed the client certificate. Values:
   * certificateValueProblem. (No certificate template: FreeRADIUS 3.2 exposes no certificate policy OID,
   * so the daemon could not enforce it.)
   */
  | { type: 'certificate'; field: 'issuer_cn' | 'san_email' | 'san_dns'; values: readonly string[] }
  /** NAS-Port-Type as FreeRADIUS names it (`Ethernet`, `Wireless-802.11`, `Virtual`). */
  | { type: 'nas_port_type'; values: readonly string[] }
  | { type: 'time_window'; window: PolicyTimeWindow }

/** One reply attribute, already validated against the dictionary and safe to quote. */
export interface NacReplyAttribute {
  /** FreeRADIUS dictionary name (`Tunnel-Private-Group-Id`, `Filter-Id`, `Cisco-AVPair`, `Aruba-User-Role`). */
  attribute: string
  value: string
  /**
   * Captive portal redirection (a Cisco `url-redirect=<url>`): the renderer appends the session's
   * parameters to the value at request time, signed with `NacPolicySource.portalRedirectKey`:
   * `?mac=<canonical MAC>&nas=<NAS-IP-Address>&ssid=<Called-Station-Id, URL-encoded>&sig=<hex
   * HMAC-SHA1 of "mac|nas|ssid">` (`&` instead of `?` when the URL has a query).
   */
  portal_session?: boolean
}

/** What an authorization profile gives: the reply attributes, or a reject. */
export interface NacAuthorization {
  profile_id: string
  profile_name: string
  /** Access-Reject instead of an accept. */
  deny: boolean
  /** In order; empty when `deny`. */
  reply: readonly NacReplyAttribute[]
}

export interface CompiledNacRule {
  id: string
  name: string
  /** 1-based, in evaluation order. */
  position: number
  conditions: readonly NacCondition[]
  authorization: NacAuthorization
}

export interface CompiledNacPolicy {
  /** Enabled rules in evaluation order; the first that holds decides. */
  rules: readonly CompiledNacRule[]
  /** The protected default rule: what every request no rule takes gets. */
  default: { id: string; name: string; authorization: NacAuthorization }
}

/** A request as the policy test takes it (and as the renderer's unlang reads it from the packet). */
export interface NacRequest {
  method: NacMethod
  /** Canonical MAC (Calling-Station-Id). */
  mac: string | null
  /** The inner identity (PEAP) or the certificate's user (EAP-TLS); null for MAB. */
  username: string | null
  /** Ids of the user's groups, nesting already expanded. */
  user_group_ids: readonly string[]
  /** Ids of the endpoint's groups (static and placed by profiling). */
  endpoint_group_ids: readonly string[]
  device_type: string | null
  /** Ids of the switch's device groups, ancestors included. */
  device_group_ids: readonly string[]
  /** A SAN type the certificate carries several of: every one, in any order. */
  certificate: { issuer_cn?: string; san_email?: string | readonly string[]; san_dns?: string | readonly string[] } | null
  nas_port_type: string | null
  /** Minutes since local midnight and weekday (0 Sunday), for time windows. */
  local_time: { day: number; minute: number }
}

/** Who supplies the compiled NAC policy (the nac plugin). */
export interface NacPolicySource {
  compile(db: Knex | Knex.Transaction): Promise<CompiledNacPolicy>
  /** MAB and profiling data the tree looks up by MAC: every known endpoint's groups and device type. */
  endpoints(db: Knex | Knex.Transaction): Promise<readonly { mac: string; endpoint_group_ids: readonly string[]; device_type: string | null }[]>
  /** The key of the signed portal redirections (a secret: only into files of mode 0600); null while no profile needs one. */
  portalRedirectKey?(db: Knex | Knex.Transaction): Promise<string | null>
}

/**
 * Why a certificate condition's value cannot be compared, or null: the one rule of the API (422 at
 * the value) and the FreeRADIUS renderer. Printable ASCII, 1–253 characters, any of them (the tree
 * writes each non-alphanumeric character as a regex `\xHH` escape). Not other characters: FreeRADIUS
 * compares the certificate's bytes and folds only ASCII letters, so `É` and `é`, or a CN encoded
 * as BMPString, could never be told apart or matched the way the policy test would.
 */
export function certificateValueProblem(value: string): string | null {
  const code = certificateValueCode(value)
  return code && CERTIFICATE_VALUE_ENGLISH[code]
}

/** The same rule's answer as a phrase (kernel/locales reasons-en.ts), for the API's 422 in the caller's language. */
export function certificateValuePhrase(value: string): Phrase | null {
  const code = certificateValueCode(value)
  return code && phrase('core:reason.certificate_value', { value: JSON.stringify(value), why: phrase(`core:reason.certificate_${code}`) })
}

function certificateValueCode(value: string): 'length' | 'ascii' | null {
  if (value.length < 1 || value.length > 253) return 'length'
  if (!/^[\x20-\x7e]+$/.test(value)) return 'ascii'
  return null
}

/** The renderer's words (a deploy's error, for the operator's log): English, as reasons-en.ts says them. */
const CERTIFICATE_VALUE_ENGLISH = {
  length: 'must be 1 to 253 characters',
  ascii: 'only printable ASCII characters (letters, digits, space and punctuation) can be compared with a certificate by FreeRADIUS',
} as const

/** ASCII letters lower-cased, nothing else (as PCRE's caseless match without UTF mode, which FreeRADIUS uses). */
export const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (c) => c.toLowerCase())

/** A certificate field's value equals a condition's value: exactly, but for the case of ASCII letters. */
export const certificateValueMatches = (condition: string, certificate: string): boolean => asciiLower(condition) === asciiLower(certificate)
