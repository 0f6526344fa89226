/**
 * "Who changed it" (design31 §6): the TACACS+ authorization and accounting records with a command
 * that the device sent between the last fetch that still saw the earlier version and the first fetch
 * that saw this one, widened by `ncm.change_window_slack_seconds` on both sides. Read through the
 * AAA logs plugin's service (ncm never reads its tables). A record is marked `matches_diff` when its
 * command is one of the lines the change added or removed (or `no ` plus one, or one is `no ` plus
 * it): a hint of who typed the change, compared on the masked texts, so a command that set a secret
 * is never matched against the secret.
 */
import { isIP } from 'node:net'
import { unifiedDiff } from '../../../sdk/index.js'
import { ncmChangeWindowSlack } from '../settings.js'
import type { NcmContext } from './context.js'
import { changedLines } from './diff.js'
import { hostOf } from './reconcile.js'
import { deviceVersion, trackedDevice, versionText } from './versions.js'

/** The most records one answer lists; `truncated` past it. */
export const CHANGES_MAX_RECORDS = 500

/** A command or a configuration line as compared: blanks collapsed, IOS's trailing `<cr>` dropped, lower case. */
export const commandKey = (s: string): string =>
  s
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(?:^| )<cr>$/i, '')
    .trim()
    .toLowerCase()

/** Whether a command is one of the changed lines, its `no ` form, or the line its `no ` form removes. */
export function matchesChange(command: string, changed: ReadonlySet<string>): boolean {
  const k = commandKey(command)
  if (!k) return false
  return changed.has(k) || changed.has(`no ${k}`) || (k.startsWith('no ') && changed.has(k.slice(3)))
}

/** The addresses the device's TACACS+ packets come from: the override, else its host when that is an address. */
async function nasAddresses(c: NcmContext, deviceId: string, aaaAddress: string | null, hostOverride: string | null): Promise<string[]> {
  if (aaaAddress) return [aaaAddress.replace(/\/(32|128)$/, '')]
  // Where the collector connects (the override, else the inventory address when it is one host), when that is an address.
  const device = await c.inventory.getDevice(deviceId)
  const host = device ? hostOf(device.address, hostOverride) : hostOverride
  return host && isIP(host) ? [host] : []
}

export async function versionChanges(c: NcmContext, deviceId: string, versionId: string, mayReadLogs: () => void = () => undefined) {
  const db = c.database.knex
  const device = await trackedDevice(db, deviceId)
  const version = await deviceVersion(db, deviceId, versionId, 'version_id')
  // The caller's right to the AAA logs is checked once the version is known to exist.
  mayReadLogs()
  const previous = version.previous_id ? await deviceVersion(db, deviceId, version.previous_id, 'version_id').catch(() => null) : null
  const nas = await nasAddresses(c, deviceId, device.aaa_address, device.host)
  const base = { version_id: version.id, previous_version_id: previous?.id ?? null, nas_addresses: nas }
  if (!c.aaaLogs) return { ...base, logs_available: false, window_from: null, window_to: null, truncated: false, items: [] }
  if (!previous) return { ...base, logs_available: true, window_from: null, window_to: null, truncated: false, items: [] }
  const slack = (await c.settings.get(ncmChangeWindowSlack)) * 1000
  const from = new Date(new Date(previous.last_seen_started_at).getTime() - slack)
  const to = new Date(new Date(version.first_finished_at).getTime() + slack)
  const found = await c.aaaLogs.tacacsCommands({ nasIps: nas, from, to, limit: CHANGES_MAX_RECORDS })
  const d = unifiedDiff(await versionText(c, db, previous, false), await versionText(c, db, version, false), { context: 0 })
  const changed = new Set(changedLines(d.unified).map(commandKey).filter((k) => k !== ''))
  return {
    ...base,
    logs_available: true,
    window_from: from.toISOString(),
    window_to: to.toISOString(),
    truncated: found.truncated,
    items: found.items.map((r) => ({
      kind: r.kind,
      timestamp: r.timestamp,
      username: r.username,
      action: r.action,
      command: r.command,
      nas_ip: r.nas_ip,
      device_name: r.device_name,
      client_address: r.client_address,
      session_id: r.session_id,
      priv_lvl: r.priv_lvl,
      matches_diff: matchesChange(r.command, changed),
    })),
  }
}
