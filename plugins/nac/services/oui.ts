/**
 * The vendor of a MAC from the IEEE registration authority's public listing,
 * as the npm package `oui-data` ships it (BSD-2-Clause; rebuilt from the IEEE
 * files and republished as they change; docs/nac.md says how to take a newer
 * one). Its keys are assignment prefixes in upper-case hex: MA-L (24 bits, 6
 * digits), MA-M (28 bits, 7) and MA-S (36 bits, 9); values are the
 * registrant's name and postal address, one per line. The longest prefix
 * wins: an MA-L block the IEEE re-sold as MA-M or MA-S blocks is listed under
 * "IEEE Registration Authority", and the smaller block names the real vendor.
 *
 * Loaded on the first lookup, not at boot (5 MB of JSON).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { isLocallyAdministered } from './mac.js'

let table: Map<string, string> | null = null

/** Registrants the listing names without saying who they are: no vendor to show. */
const NO_VENDOR = new Set(['private'])

function load(): Map<string, string> {
  // Through the resolver, not an import: the file is JSON, and a bundle must not inline 5 MB.
  const file = createRequire(import.meta.url).resolve('oui-data')
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>
  const out = new Map<string, string>()
  for (const [prefix, value] of Object.entries(raw)) {
    // The first line is the organization; the rest its address. Trimmed, one line, bounded like the column.
    const name = value.split('\n', 1)[0].replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, 128)
    if (name && !NO_VENDOR.has(name.toLowerCase())) out.set(prefix.toUpperCase(), name)
  }
  return out
}

/**
 * The registered vendor of a canonical MAC (`aa:bb:cc:dd:ee:ff`), or null:
 * unassigned, registered privately, or locally administered (a randomized
 * address, to which no OUI applies).
 */
export function ouiVendor(mac: string): string | null {
  if (isLocallyAdministered(mac)) return null
  table ??= load()
  const hex = mac.replace(/:/g, '').toUpperCase()
  return table.get(hex.slice(0, 9)) ?? table.get(hex.slice(0, 7)) ?? table.get(hex.slice(0, 6)) ?? null
}

/** How many prefixes the listing holds (system information, the tests). */
export function ouiPrefixCount(): number {
  table ??= load()
  return table.size
}
