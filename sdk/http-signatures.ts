/**
 * HTTP Message Signatures (RFC 9421), the subset a remote collector and the core need, and the body's
 * digest (RFC 9530 `Content-Digest`). Each collector holds its own Ed25519 key; the core keeps only the
 * public half, so a stolen database signs nothing (unlike the shared HMAC key of sdk/signed-request.ts).
 *
 * The subset: algorithm Ed25519 only; one signature label per message; the components `@method`,
 * `@path`, `@query`, `@authority`, `@status` and header fields by lower-case name (no `;sf`, `;bs`, `;key`,
 * `;req` parameters); signature parameters `created`, `nonce`, `keyid`, `alg` and `tag`.
 *
 * Parsing is strict: the two headers are RFC 8941 dictionaries of exactly one member, and what is parsed
 * must serialize back to the received text byte for byte, so two readers can never see two different
 * signatures in one header. node:crypto only (the collector process imports this file).
 */
import { createHash, randomBytes, sign, verify, type KeyObject } from 'node:crypto'

export interface HttpMessage {
  method: string
  /** The path as sent, without the query (`/api/v1/x`). */
  path: string
  /** '' or the query with its `?` (`?a=b`), as sent. */
  query: string
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>
  body: Uint8Array
  /** An answer's status code, for `@status`. */
  status?: number
}

export type VerifyRefusal = 'malformed' | 'not_covered' | 'stale' | 'unknown_key' | 'bad_signature' | 'bad_digest'

/** The parameters this subset reads; any other is refused. `created` is a number, the others strings. */
const PARAMS = new Set(['created', 'nonce', 'keyid', 'alg', 'tag'])
const DERIVED = new Set(['@method', '@path', '@query', '@authority', '@status'])
const FIELD_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/
const KEY = /^[a-z*][a-z0-9_\-.*]*$/
const DEFAULT_LABEL = 'ncm'

/** A signature's covered components and its parameters, in the order written. */
export interface SignatureInput {
  components: string[]
  params: Array<[string, string | number]>
}

// ---- RFC 9530 ----

/** `sha-256=:<base64>:` of the body (an empty body has a digest too). */
export function contentDigest(body: Uint8Array): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`
}

/** True when the header is exactly the sha-256 digest of these bytes (the only algorithm sent or read). */
export function verifyContentDigest(header: string | undefined, body: Uint8Array): boolean {
  return typeof header === 'string' && header === contentDigest(body)
}

// ---- RFC 8941, the pieces used here ----

const serializeString = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`
const serializeParam = ([k, v]: [string, string | number]) => `;${k}=${typeof v === 'number' ? String(v) : serializeString(v)}`

/** The `@signature-params` value: `("@method" …);created=…;keyid="…"`. */
export function serializeSignatureInput(input: SignatureInput): string {
  return `(${input.components.map(serializeString).join(' ')})${input.params.map(serializeParam).join('')}`
}

/** A string of printable ASCII, `\"` and `\\` escaped; null past the end or on anything else. */
function readString(s: string, at: number): { value: string; end: number } | null {
  if (s[at] !== '"') return null
  let value = ''
  for (let i = at + 1; i < s.length; i++) {
    const c = s[i]
    if (c === '"') return { value, end: i + 1 }
    if (c === '\\') {
      const n = s[++i]
      if (n !== '"' && n !== '\\') return null
      value += n
    } else if (c < ' ' || c > '~') return null
    else value += c
  }
  return null
}

/** `<label>=<rest>` when the header is one dictionary member with that label. */
function member(header: string | string[] | undefined, label: string): string | null {
  if (typeof header !== 'string' || !KEY.test(label) || !header.startsWith(`${label}=`)) return null
  return header.slice(label.length + 1)
}

/** A `Signature-Input` header of one member named `label`; null unless it re-serializes byte for byte. */
export function parseSignatureInput(header: string | string[] | undefined, label: string): SignatureInput | null {
  const text = member(header, label)
  if (text === null || text[0] !== '(') return null
  const components: string[] = []
  let i = 1
  while (text[i] !== ')') {
    if (components.length) {
      if (text[i] !== ' ') return null
      i++
    }
    const item = readString(text, i)
    if (!item) return null
    components.push(item.value)
    i = item.end
  }
  i++
  const params: Array<[string, string | number]> = []
  while (i < text.length) {
    const m = /^;([a-z*][a-z0-9_\-.*]*)=/.exec(text.slice(i))
    if (!m) return null
    i += m[0].length
    const key = m[1]
    if (text[i] === '"') {
      const item = readString(text, i)
      if (!item) return null
      params.push([key, item.value])
      i = item.end
    } else {
      const n = /^-?[0-9]{1,15}/.exec(text.slice(i))
      if (!n) return null
      params.push([key, Number(n[0])])
      i += n[0].length
    }
  }
  const input = { components, params }
  return serializeSignatureInput(input) === text ? input : null
}

/** The signature bytes of a `Signature` header of one member named `label` (`label=:base64:`). */
export function parseSignature(header: string | string[] | undefined, label: string): Buffer | null {
  const text = member(header, label)
  const m = text === null ? null : /^:([A-Za-z0-9+/]*={0,2}):$/.exec(text)
  if (!m) return null
  const bytes = Buffer.from(m[1], 'base64')
  return bytes.toString('base64') === m[1] ? bytes : null
}

// ---- the signature base (RFC 9421 §2.5) ----

class Unproducible extends Error {}

function componentValue(msg: HttpMessage, name: string): string {
  switch (name) {
    case '@method':
      return msg.method
    case '@path':
      return msg.path === '' ? '/' : msg.path
    case '@query':
      return msg.query === '' ? '?' : msg.query
    case '@authority': {
      const host = msg.headers.host
      if (typeof host !== 'string' || !host) throw new Unproducible(name)
      return host.trim().toLowerCase()
    }
    case '@status':
      if (msg.status === undefined) throw new Unproducible(name)
      return String(msg.status)
  }
  const v = msg.headers[name]
  if (v === undefined) throw new Unproducible(name)
  return (Array.isArray(v) ? v : [v]).map((x) => x.trim()).join(', ')
}

/**
 * The text that is signed: one `"<component>": <value>` line per covered component, then the
 * `"@signature-params"` line (no final line feed). Throws when a component is unknown to this subset,
 * covered twice, absent from the message, or holds a line break.
 */
export function signatureBase(msg: HttpMessage, input: SignatureInput): string {
  const lines: string[] = []
  const seen = new Set<string>()
  for (const name of input.components) {
    if (seen.has(name) || !(DERIVED.has(name) || (FIELD_NAME.test(name) && !name.startsWith('@')))) throw new Unproducible(name)
    seen.add(name)
    const value = componentValue(msg, name)
    if (/[\r\n]/.test(value)) throw new Unproducible(name)
    lines.push(`${serializeString(name)}: ${value}`)
  }
  lines.push(`"@signature-params": ${serializeSignatureInput(input)}`)
  return lines.join('\n')
}

// ---- signing and verifying ----

/** The two headers to add to `msg` (which must already carry every covered header, `content-digest` too). */
export function signMessage(
  msg: HttpMessage,
  privateKey: KeyObject,
  p: { keyid: string; tag: string; label?: string; components: string[]; created?: number; nonce?: string },
): { 'signature-input': string; signature: string } {
  const label = p.label ?? DEFAULT_LABEL
  const input: SignatureInput = {
    components: p.components,
    params: [
      ['created', p.created ?? Math.floor(Date.now() / 1000)],
      ['nonce', p.nonce ?? randomBytes(16).toString('base64url')],
      ['keyid', p.keyid],
      ['alg', 'ed25519'],
      ['tag', p.tag],
    ],
  }
  const sig = sign(null, Buffer.from(signatureBase(msg, input)), privateKey)
  return { 'signature-input': `${label}=${serializeSignatureInput(input)}`, signature: `${label}=:${sig.toString('base64')}:` }
}

/**
 * Checks a signed message, in the order a gate refuses: the headers parse, cover every `required`
 * component and carry this `tag`, `alg="ed25519"`, a `created`, a `nonce` and a `keyid` (`malformed` or
 * `not_covered`); `created` lies within `windowSeconds` of `now` (milliseconds, default `Date.now()`)
 * (`stale`); the key is known (`unknown_key`); the Ed25519 signature verifies (`bad_signature`); and,
 * when `content-digest` is covered, the digest is the body's (`bad_digest`). Replay (the nonce seen
 * before) is the caller's to check, with its own store.
 */
export async function verifyMessage(
  msg: HttpMessage,
  o: { resolveKey: (keyid: string) => Promise<KeyObject | null>; required: string[]; tag: string; label?: string; windowSeconds: number; now?: number },
): Promise<{ ok: true; keyid: string; nonce: string; created: number } | { ok: false; reason: VerifyRefusal }> {
  const refuse = (reason: VerifyRefusal) => ({ ok: false as const, reason })
  const label = o.label ?? DEFAULT_LABEL
  const input = parseSignatureInput(msg.headers['signature-input'], label)
  const sig = parseSignature(msg.headers.signature, label)
  if (!input || !sig) return refuse('malformed')
  const params = new Map<string, string | number>()
  for (const [k, v] of input.params) {
    if (!PARAMS.has(k) || params.has(k)) return refuse('malformed')
    params.set(k, v)
  }
  const created = params.get('created')
  const nonce = params.get('nonce')
  const keyid = params.get('keyid')
  if (typeof created !== 'number' || typeof nonce !== 'string' || !nonce || typeof keyid !== 'string' || !keyid) return refuse('malformed')
  if (params.get('alg') !== 'ed25519' || params.get('tag') !== o.tag) return refuse('malformed')
  if (!o.required.every((c) => input.components.includes(c))) return refuse('not_covered')
  let base: string
  try {
    base = signatureBase(msg, input)
  } catch (e) {
    if (e instanceof Unproducible) return refuse('malformed')
    throw e
  }
  if (Math.abs(Math.floor((o.now ?? Date.now()) / 1000) - created) > o.windowSeconds) return refuse('stale')
  const key = await o.resolveKey(keyid)
  if (!key) return refuse('unknown_key')
  let good = false
  try {
    good = key.asymmetricKeyType === 'ed25519' && sig.length === 64 && verify(null, Buffer.from(base), key, sig)
  } catch {
    good = false
  }
  if (!good) return refuse('bad_signature')
  if (input.components.includes('content-digest')) {
    const d = msg.headers['content-digest']
    if (typeof d !== 'string' || !verifyContentDigest(d, msg.body)) return refuse('bad_digest')
  }
  return { ok: true, keyid, nonce, created }
}
