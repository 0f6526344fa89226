/**
 * Captive portal redirection: the url-redirect of an authorization profile with `portal_redirect`
 * (sdk NacReplyAttribute.portal_session) carries the session's parameters, signed, so that the
 * portal knows which device it is talking to and a guest cannot claim another one by editing the URL:
 *
 *   url-redirect=<url>?mac=<canonical MAC>&nas=<NAS-IP-Address>&ssid=<Called-Station-Id, URL-encoded>&sig=<hex>
 *
 * sig = HMAC-SHA1 (rlm_expr `%{hmacsha1:&data &key}`, FreeRADIUS 3.2's only HMAC but MD5) keyed with
 * the nac plugin's key, of `mac|nas|ssid`: the three values exactly as they go into the URL before
 * encoding (nac services/portal-redirect.ts checks the same). The MAC (hex and colons) and the NAS
 * address (digits, dots, hex, colons) are sent as they are: RFC 3986 allows `:` in a query. The
 * Called-Station-Id (`aa-bb-cc-dd-ee-ff:Guest WiFi`) goes through `%{urlquote:…}`.
 *
 * The key is written in `portcullis/nac-portal-sign` only (mode 0600, declared a secret), which a
 * deciding rule includes: set, used and removed again from the request's control list.
 */
import { quoteValue } from '../services/values.js'
import type { FreeradiusNac } from './nac-input.js'
import { NAC_ATTRIBUTES as N } from './nac-attributes.js'
import { FreeradiusRenderError, HEADER, T } from './syntax.js'

export const PORTAL_SIGN_FILE = 'portcullis/nac-portal-sign'
/** What the key may hold (the nac setting's pattern): nothing unlang would read in a quoted string. */
const KEY = /^[A-Za-z0-9_-]{32,128}$/
const NAS = `%{%{NAS-IP-Address}:-%{NAS-IPv6-Address}}`

/** The statements that compute control:Portcullis-Portal-Sig for this request. */
export function portalSignFile(nac: FreeradiusNac | null): string {
  const key = nac?.portalKey ?? null
  if (key === null) return `${HEADER}\n# No key for signed portal redirections yet: no authorization profile has portal_redirect.\n`
  if (!KEY.test(key)) throw new FreeradiusRenderError('setting nac.portal_redirect_key is not a key the tree can hold (32 to 128 letters, digits, - or _)')
  return [
    HEADER,
    '# The signature of a captive portal redirection (renderers/nac-portal.ts): HMAC-SHA1 of "mac|nas|ssid".',
    'update control {',
    `${T}&${N.portalKey} := "${key}"`,
    `${T}&${N.portalSigned} := "%{control:${N.mac}}|${NAS}|%{Called-Station-Id}"`,
    '}',
    'update control {',
    `${T}&${N.portalSig} := "%{hmacsha1:&control:${N.portalSigned} &control:${N.portalKey}}"`,
    '}',
    'update control {',
    `${T}&${N.portalKey} !* ANY`,
    '}',
    '',
  ].join('\n')
}

/** The secret that file holds (RenderedFile.secrets). */
export const portalSecrets = (nac: FreeradiusNac | null): string[] => (nac?.portalKey ? [nac.portalKey] : [])

/**
 * The quoted url-redirect value with the parameters expanded at request time. `value` is
 * `url-redirect=<url>`, already held to the value rules (no quote, `%`, `${`, control character).
 */
export function portalRedirectValue(value: string): string {
  const base = quoteValue(value).slice(0, -1)
  const sep = value.includes('?') ? '&' : '?'
  return `${base}${sep}mac=%{control:${N.mac}}&nas=${NAS}&ssid=%{urlquote:%{Called-Station-Id}}&sig=%{control:${N.portalSig}}"`
}
