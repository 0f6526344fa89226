/**
 * `ncm.configuration-changes`: the configuration changes configuration tracking found in the range
 * (a fetched configuration that differs from the device's previous version; a device's first
 * version is no change), per device, with the lines added and removed. Counts only: no line of a
 * configuration reaches the report, so no secret either. Who typed a change (the TACACS+ commands
 * around it) is the version's own page: correlating every change of a month is not a summary's job.
 */
import type { Knex } from 'knex'
import { barChart, reportStatement, bucketSql, countOf, isoTime, reportGrain, stopIfAborted, timeSeries, type ReportInventory, type ReportQuery, type ReportSection, type ReportSource } from '../../../sdk/index.js'
import { devicesOfGroup } from '../../../sdk/index.js'
import { NCM_READ } from '../permissions.js'

const TOP = 15

interface SummaryRow {
  part: 'series' | 'device' | 'totals'
  label: string | null
  n: string | number
  added: string | number | null
  removed: string | number | null
  secrets_only: string | number | null
  devices: string | number | null
}
interface DetailRow {
  first_finished_at: Date | string
  device_id: string
  added: number
  removed: number
  secrets_only: boolean
  last_seen_at: Date | string
}

export function configurationChangesSource(inventory: ReportInventory): ReportSource {
  return {
    id: 'ncm.configuration-changes',
    title: { en: 'Configuration changes', ru: 'Изменения конфигураций' },
    description: {
      en: 'Configuration changes found by configuration tracking in the period, per device, with the lines added and removed.',
      ru: 'Изменения конфигураций, найденные отслеживанием конфигураций в периоде, по устройствам, с числом добавленных и удалённых строк.',
    },
    permission: NCM_READ,
    filters: ['device_group'],
    run: (q) => runConfigurationChanges(q, inventory),
  }
}

export async function runConfigurationChanges(q: ReportQuery, inventory: ReportInventory): Promise<ReportSection> {
  const knex = q.reader.knex
  const names = new Map((await inventory.listDevices(knex)).map((d) => [d.id, d.name]))
  const parts = ['v.previous_id IS NOT NULL', 'v.first_finished_at >= ?', 'v.first_finished_at < ?']
  const bindings: Knex.RawBinding[] = [q.from.toISOString(), q.to.toISOString()]
  if (q.deviceGroupId !== null) {
    const ids = (await devicesOfGroup(inventory, knex, q.deviceGroupId)).map((d) => d.id)
    parts.push('v.device_id::text = ANY(?::text[])')
    bindings.push(`{${ids.join(',')}}`)
  }
  const where = parts.join(' AND ')
  const grain = reportGrain(q.from, q.to)
  const bucket = bucketSql('v.first_finished_at', grain)
  stopIfAborted(q.signal)
  const summary = (
    await reportStatement<SummaryRow>(
      q,
      `WITH g AS (
         SELECT ${bucket} AS b, v.device_id::text AS device, count(*) AS n, sum(v.added) AS added, sum(v.removed) AS removed,
                sum(CASE WHEN v.secrets_only THEN 1 ELSE 0 END) AS secrets_only, GROUPING(${bucket}) AS gb, GROUPING(v.device_id::text) AS gd
           FROM ncm_versions v WHERE ${where}
          GROUP BY GROUPING SETS ((${bucket}), (v.device_id::text), ())
       )
       SELECT 'series' AS part, b AS label, n, NULL::bigint AS added, NULL::bigint AS removed, NULL::bigint AS secrets_only, NULL::bigint AS devices FROM g WHERE gb = 0
       UNION ALL (SELECT 'device', device, n, NULL, NULL, NULL, NULL FROM g WHERE gd = 0 AND gb = 1 ORDER BY n DESC, device LIMIT ${TOP})
       UNION ALL SELECT 'totals', NULL, n, added, removed, secrets_only, (SELECT count(*) FROM g WHERE gd = 0 AND gb = 1) FROM g WHERE gb = 1 AND gd = 1`,
      bindings,
    )
  )
  stopIfAborted(q.signal)
  const limit = Math.max(0, Math.floor(q.rowLimit))
  const detail = (
    await reportStatement<DetailRow>(
      q,
      `SELECT v.first_finished_at, v.device_id, v.added, v.removed, v.secrets_only, v.last_seen_at
         FROM ncm_versions v WHERE ${where} ORDER BY v.first_finished_at DESC, v.id DESC LIMIT ?`,
      [...bindings, limit + 1],
    )
  )
  const series = new Map<string, number>()
  const top: { label: string; value: number }[] = []
  let totals = { changes: 0, added: 0, removed: 0, secretsOnly: 0, devices: 0 }
  for (const r of summary) {
    const n = countOf(r.n)
    if (r.part === 'series' && r.label) series.set(r.label, n)
    else if (r.part === 'device') top.push({ label: names.get(r.label ?? '') ?? r.label ?? '', value: n })
    else if (r.part === 'totals') totals = { changes: n, added: countOf(r.added), removed: countOf(r.removed), secretsOnly: countOf(r.secrets_only), devices: countOf(r.devices) }
  }
  const per = grain === 'day' ? { en: 'per day', ru: 'по дням' } : { en: 'per month', ru: 'по месяцам' }
  return {
    figures: [
      { label: { en: 'Changes', ru: 'Изменения' }, value: totals.changes },
      { label: { en: 'Devices changed', ru: 'Изменённые устройства' }, value: totals.devices },
      { label: { en: 'Lines added', ru: 'Добавлено строк' }, value: totals.added },
      { label: { en: 'Lines removed', ru: 'Удалено строк' }, value: totals.removed },
      { label: { en: 'Changes of secrets only', ru: 'Изменения только секретов' }, value: totals.secretsOnly },
    ],
    charts: [
      timeSeries({ en: `Changes ${per.en}`, ru: `Изменения ${per.ru}` }, series, q.from, q.to, grain),
      barChart({ en: 'Most changed devices', ru: 'Чаще всего изменяемые устройства' }, top.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label))),
    ],
    columns: [
      { key: 'time', title: { en: 'Found', ru: 'Обнаружено' }, type: 'timestamp' },
      { key: 'device', title: { en: 'Device', ru: 'Устройство' }, type: 'text' },
      { key: 'added', title: { en: 'Lines added', ru: 'Добавлено строк' }, type: 'integer' },
      { key: 'removed', title: { en: 'Lines removed', ru: 'Удалено строк' }, type: 'integer' },
      { key: 'secrets_only', title: { en: 'Secrets only', ru: 'Только секреты' }, type: 'boolean' },
      { key: 'last_seen', title: { en: 'Last seen', ru: 'Последний раз получена' }, type: 'timestamp' },
    ],
    rows: detail.slice(0, limit).map((r) => ({
      time: isoTime(r.first_finished_at),
      device: names.get(r.device_id) ?? r.device_id,
      added: Number(r.added),
      removed: Number(r.removed),
      secrets_only: r.secrets_only === true || String(r.secrets_only) === 't',
      last_seen: isoTime(r.last_seen_at),
    })),
    truncated: detail.length > limit,
    totalRows: totals.changes,
  }
}
