/** FreeRADIUS syntax for the renderer: names, secrets and passwords as literals that cannot break out. */
import { CONTROL_ATTRIBUTES, type RadiusRejectReason } from '../../../sdk/logs/freeradius.js'
import { quoteValue } from '../services/values.js'

export class FreeradiusRenderError extends Error {
  constructor(message: string) {
    super(`freeradius: ${message}`)
    this.name = 'FreeradiusRenderError'
  }
}

export const T = '\t'
/** Device, group, rule and profile names (inventory, aaa-policy and radius schemas). */
export const CONFIG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
/** Usernames (kernel identity schema). */
export const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/
export const SHA512_CRYPT = /^\$6\$(rounds=[0-9]{1,9}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}$/
export const NT_HASH = /^[0-9A-Fa-f]{32}$/
/** A password FreeRADIUS can read back from a single-quoted literal: no control characters. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const CLEARTEXT = /^[^\u0000-\u001f\u007f]+$/
/** An IPv4 or IPv6 prefix in the inventory's canonical form. */
export const CIDR = /^[0-9A-Fa-f.:]+\/[0-9]{1,3}$/
export const IP = /^[0-9A-Fa-f.:]+$/

/**
 * The lines that say why a request is rejected, at each reject point of the tree: the message for
 * FreeRADIUS's own log (request:Module-Failure-Message) and the code of the log row's `reject_reason`
 * (control:Tmp-String-2, sdk/logs/freeradius.ts). `indent`: the tabs of the enclosing block.
 */
export function refusal(code: RadiusRejectReason, message: string, indent: string): string[] {
  return [
    `${indent}update request {`,
    `${indent}${T}&Module-Failure-Message := ${quoteValue(message)}`,
    `${indent}}`,
    `${indent}update control {`,
    `${indent}${T}&${CONTROL_ATTRIBUTES.rejectReason} := ${quoteValue(code)}`,
    `${indent}}`,
  ]
}

/**
 * The expiration module on control:Expiration (users.expires_at): refused from that second on, named
 * `expired`; before it, the module caps the reply's Session-Timeout at the seconds left (or adds one).
 * `userlock = 1` makes the module go on to the test below instead of leaving the section unnamed.
 * `call`: how the section calls it (`expiration`, or `expiration.authorize` outside authorize).
 */
export function expirationRefusal(comment: string, call = 'expiration'): string[] {
  return [
    comment,
    'if (&control:Expiration) {',
    `${T}${call} {`,
    `${T}${T}userlock = 1`,
    `${T}}`,
    `${T}if (userlock) {`,
    ...refusal('expired', 'the account has expired', T + T),
    `${T}${T}reject`,
    `${T}}`,
    '}',
  ]
}

/** Byte order (not locale order): the same on every machine. */
export const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export function name(value: string, what: string, pattern = CONFIG_NAME): string {
  if (!pattern.test(value)) throw new FreeradiusRenderError(`${what} ${JSON.stringify(value)} is not a valid name`)
  return value
}

/** A validated name as a double-quoted FreeRADIUS string. */
export const qname = (value: string, what: string, pattern = CONFIG_NAME) => quoteValue(name(value, what, pattern))

/**
 * A shared secret as a double-quoted configuration string. The configuration
 * reader expands `${…}` (and `$ENV{…}`) while it reads, but not `%{…}` in a
 * client's `secret` (no run-time expansion there), so unlike a reply value a
 * secret may hold `%`. The inventory refuses `"`, `\` and `$` in secrets; this
 * refuses what would break out anyway, whatever the row holds.
 */
export function qsecret(secret: string, device: string): string {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (secret === '' || /[\u0000-\u001f\u007f]|\$/.test(secret)) {
    throw new FreeradiusRenderError(`the RADIUS secret of device ${device} holds a control character or "$"`)
  }
  return `"${secret.replace(/[\\"]/g, (c) => '\\' + c)}"`
}

export const HEADER = '# Written by Portcullis (renderer radius.freeradius). Do not edit: the next deploy replaces this file.'

/**
 * A cleartext password (CHAP, checked against CLEARTEXT first) as a
 * single-quoted literal: never expanded at run time; `\` and `'` are the
 * only escapes a single-quoted string reads.
 */
export function qcleartext(password: string): string {
  return `'${password.replace(/[\\']/g, (c) => '\\' + c)}'`
}
