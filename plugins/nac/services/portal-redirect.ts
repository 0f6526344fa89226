/**
 * Captive portal redirection (docs/nac.md "Captive portal redirection"). An authorization profile
 * with `portal_redirect` makes FreeRADIUS append the session's parameters to its Cisco url-redirect:
 *
 *   ?mac=<canonical MAC>&nas=<NAS-IP-Address>&ssid=<Called-Station-Id, URL-encoded>&sig=<hex>
 *
 * `sig` is HMAC-SHA1 (FreeRADIUS 3.2's `%{hmacsha1:…}`, the only HMAC it has besides MD5), keyed
 * with setting nac.portal_redirect_key, of the three values as sent, joined by `|`:
 * `mac|nas|ssid`. Neither a MAC nor an IP address holds a `|` and the SSID comes last, so no two
 * triples sign alike. The portal recomputes it here: a guest cannot claim another device's MAC (and
 * so register it) by editing the URL.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'
import type { Knex } from 'knex'
import type { SettingsService } from '../../../sdk/index.js'
import type { PortalRedirect } from '../api.js'
import { portalRedirectKey } from '../settings.js'
import { normalizeMac } from './mac.js'

type Db = Knex | Knex.Transaction

/** What is signed: the parameters as sent (after URL decoding), in order, joined by `|`. */
export const portalSigned = (mac: string, nas: string, ssid: string): string => `${mac}|${nas}|${ssid}`

export const portalSignature = (key: string, mac: string, nas: string, ssid: string): string => createHmac('sha1', key).update(portalSigned(mac, nas, ssid), 'utf8').digest('hex')

/** The key, or null before the first portal profile made one. */
export const portalKey = (settings: SettingsService, db?: Db): Promise<string | null> => settings.get(portalRedirectKey, db)

/**
 * Makes the key when there is none (a profile with `portal_redirect` being saved, in its
 * transaction). Two first profiles saved at once each write one: the later stands, and the deploy
 * both ask for renders it, so nothing ever signs with the other.
 */
export async function ensurePortalKey(settings: SettingsService, trx: Knex.Transaction): Promise<void> {
  if ((await settings.get(portalRedirectKey, trx)) !== null) return
  await settings.set(portalRedirectKey, randomBytes(32).toString('base64url'), { actor: null, trx })
}

/** Text from the URL as kept: control characters out, cut. */
const clean = (s: string, max: number) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim().slice(0, max)

/**
 * The SSID of a Called-Station-Id: `aa-bb-cc-dd-ee-ff:Guest WiFi` (the access point's MAC, a colon,
 * the SSID; RFC 3580) gives `Guest WiFi`; a bare MAC (a wired switch port) none; anything else is
 * taken as the SSID itself (a NAS that sends only the name).
 */
export function ssidOf(calledStationId: string | undefined): string | null {
  if (!calledStationId) return null
  const m = /^([0-9a-f]{2}[-:.]?){5}[0-9a-f]{2}(?::(.*))?$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}(?::(.*))?$/i.exec(calledStationId)
  const ssid = m ? (m[2] ?? m[4] ?? '') : calledStationId
  return clean(ssid, 64) || null
}

/** NacService.verifyPortalRedirect, given the key. */
export function verifyPortalRedirect(key: string | null, q: Record<string, string | undefined>): PortalRedirect | null {
  const mac = typeof q.mac === 'string' ? normalizeMac(q.mac) : null
  if (!mac) return null
  const nas = typeof q.nas === 'string' ? q.nas : ''
  const called = typeof q.ssid === 'string' ? q.ssid : ''
  const out = { mac, nas_ip: isIP(nas) ? nas : null, ssid: ssidOf(called) }
  if (q.sig === undefined) return { ...out, signed: false }
  if (key === null || typeof q.sig !== 'string' || !/^[0-9a-f]{40}$/i.test(q.sig)) return null
  const want = Buffer.from(portalSignature(key, q.mac!, nas, called), 'hex')
  return timingSafeEqual(want, Buffer.from(q.sig, 'hex')) ? { ...out, signed: true } : null
}
