/**
 * The signature FreeRADIUS puts on a captive-portal redirect (`%{hmacsha1:…}` over `mac|nas|ssid`,
 * docs/nac.md "Captive portal redirection"), made here as the daemon makes it: tests and benches
 * play the switch's side with it, independently of the code that checks it.
 */
import { createHmac } from 'node:crypto'

export const signPortalRedirect = (key: string, mac: string, nas: string, ssid: string): string =>
  createHmac('sha1', key).update(`${mac}|${nas}|${ssid}`, 'utf8').digest('hex')
