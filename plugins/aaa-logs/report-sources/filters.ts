/**
 * The WHERE of every AAA-log report statement: the half-open range on `timestamp` (the partition
 * key, so only the range's months are read), the device group as the prefixes of its devices and
 * its descendants' (`nas_ip` is the address the daemon verified), the user group as its members'
 * user names (the daemons log the name as typed; the platform's accounts are compared exactly).
 */
import type { Knex } from 'knex'
import { cidrArray, devicesOfGroup, USER_GROUP_USERNAMES, type ReportInventory, type ReportQuery } from '../../../sdk/index.js'

export interface LogFilter {
  /** SQL after WHERE, over a log table aliased `l`. */
  sql: string
  bindings: Knex.RawBinding[]
  /** Every device's TACACS+ key and RADIUS secret, for masking by value (empty without the inventory). */
  secretValues: string[]
}

export interface ReportDeps {
  inventory: (ReportInventory & { allDeviceSecrets(kind: 'tacacs_key' | 'radius_secret', db?: Knex): Promise<Map<string, string>> }) | undefined
}

export async function logFilter(q: ReportQuery, deps: ReportDeps, opts: { secrets: boolean }): Promise<LogFilter> {
  const knex = q.reader.knex
  const parts = ['l.timestamp >= ?', 'l.timestamp < ?']
  const bindings: Knex.RawBinding[] = [q.from.toISOString(), q.to.toISOString()]
  if (q.deviceGroupId !== null) {
    // Without the inventory no device belongs to any group: the report is empty rather than unfiltered.
    const devices = deps.inventory ? await devicesOfGroup(deps.inventory, knex, q.deviceGroupId) : []
    parts.push('l.nas_ip <<= ANY(?::cidr[])')
    bindings.push(cidrArray(devices.map((d) => d.address)))
  }
  if (q.userGroupId !== null) {
    parts.push(`l.username IN (${USER_GROUP_USERNAMES})`)
    bindings.push(q.userGroupId)
  }
  const secretValues: string[] = []
  if (opts.secrets && deps.inventory) {
    for (const kind of ['tacacs_key', 'radius_secret'] as const) secretValues.push(...(await deps.inventory.allDeviceSecrets(kind, knex)).values())
  }
  return { sql: parts.join(' AND '), bindings, secretValues }
}
