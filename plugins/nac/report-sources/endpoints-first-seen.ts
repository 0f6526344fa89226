/**
 * `nac.endpoints-first-seen`: the endpoints the network saw for the first time in the range (a MAC
 * address's first authentication or accounting record), with what profiling made of them: vendor,
 * device type, endpoint group, owner. The NAS shown is the one that saw it last (the first is not
 * kept). The device-group filter keeps endpoints last seen on a device of the group or below; the
 * user-group filter, endpoints owned by a member.
 */
import type { Knex } from 'knex'
import {
  barChart,
  reportStatement,
  bucketSql,
  cidrArray,
  countOf,
  devicesOfGroup,
  isoTime,
  reportGrain,
  stopIfAborted,
  timeSeries,
  USER_GROUP_USER_IDS,
  type ReportInventory,
  type ReportQuery,
  type ReportSection,
  type ReportSource,
} from '../../../sdk/index.js'
import { NAC_READ } from '../permissions.js'

const TOP = 15
/** last_nas_ip is text: only an address is cast, so one odd value cannot fail the report. */
const NAS_INET = `CASE WHEN e.last_nas_ip ~ '^[0-9a-fA-F:.]+$' THEN e.last_nas_ip::inet END`

interface SummaryRow {
  part: 'series' | 'device_type' | 'vendor' | 'group'
  label: string | null
  n: string | number
}
interface DetailRow {
  first_seen_at: Date | string
  mac: string
  vendor: string | null
  device_type: string | null
  endpoint_group: string | null
  owner: string | null
  last_nas_ip: string | null
  last_seen_at: Date | string | null
  last_auth_result: string | null
}

async function where(q: ReportQuery, inventory: ReportInventory | undefined): Promise<{ sql: string; bindings: Knex.RawBinding[] }> {
  const parts = ['e.first_seen_at >= ?', 'e.first_seen_at < ?']
  const bindings: Knex.RawBinding[] = [q.from.toISOString(), q.to.toISOString()]
  if (q.deviceGroupId !== null) {
    const devices = inventory ? await devicesOfGroup(inventory, q.reader.knex, q.deviceGroupId) : []
    parts.push(`${NAS_INET} <<= ANY(?::cidr[])`)
    bindings.push(cidrArray(devices.map((d) => d.address)))
  }
  if (q.userGroupId !== null) {
    parts.push(`e.owner_user_id::text IN (${USER_GROUP_USER_IDS})`)
    bindings.push(q.userGroupId)
  }
  return { sql: parts.join(' AND '), bindings }
}

export function endpointsFirstSeenSource(inventory: ReportInventory | undefined): ReportSource {
  return {
    id: 'nac.endpoints-first-seen',
    title: { en: 'Endpoints first seen', ru: 'Новые оконечные устройства' },
    description: {
      en: 'Endpoints (MAC addresses) the network saw for the first time in the period, with vendor, device type, group and owner.',
      ru: 'Оконечные устройства (MAC-адреса), впервые замеченные сетью в периоде, с производителем, типом, группой и владельцем.',
    },
    permission: NAC_READ,
    filters: inventory ? ['device_group', 'user_group'] : ['user_group'],
    run: (q) => runEndpointsFirstSeen(q, inventory),
  }
}

export async function runEndpointsFirstSeen(q: ReportQuery, inventory: ReportInventory | undefined): Promise<ReportSection> {
  const w = await where(q, inventory)
  const grain = reportGrain(q.from, q.to)
  const bucket = bucketSql('e.first_seen_at', grain)
  stopIfAborted(q.signal)
  const summary = (
    await reportStatement<SummaryRow>(
      q,
      `WITH g AS (
         SELECT ${bucket} AS b, coalesce(e.device_type, '') AS device_type, coalesce(e.vendor, '') AS vendor, coalesce(eg.name, '') AS grp, count(*) AS n,
                GROUPING(${bucket}) AS gb, GROUPING(coalesce(e.device_type, '')) AS gd, GROUPING(coalesce(e.vendor, '')) AS gv, GROUPING(coalesce(eg.name, '')) AS gg
           FROM nac_endpoints e LEFT JOIN nac_endpoint_groups eg ON eg.id = e.endpoint_group_id
          WHERE ${w.sql}
          GROUP BY GROUPING SETS ((${bucket}), (coalesce(e.device_type, '')), (coalesce(e.vendor, '')), (coalesce(eg.name, '')))
       )
       SELECT 'series' AS part, b AS label, n FROM g WHERE gb = 0
       UNION ALL (SELECT 'device_type', device_type, n FROM g WHERE gd = 0 ORDER BY n DESC, device_type LIMIT ${TOP})
       UNION ALL (SELECT 'vendor', vendor, n FROM g WHERE gv = 0 ORDER BY n DESC, vendor LIMIT ${TOP})
       UNION ALL (SELECT 'group', grp, n FROM g WHERE gg = 0 ORDER BY n DESC, grp LIMIT ${TOP})`,
      w.bindings,
    )
  )
  stopIfAborted(q.signal)
  const limit = Math.max(0, Math.floor(q.rowLimit))
  const detail = (
    await reportStatement<DetailRow>(
      q,
      `SELECT e.first_seen_at, e.mac, e.vendor, e.device_type, eg.name AS endpoint_group, u.username AS owner, e.last_nas_ip, e.last_seen_at, e.last_auth_result
         FROM nac_endpoints e LEFT JOIN nac_endpoint_groups eg ON eg.id = e.endpoint_group_id LEFT JOIN users u ON u.id = e.owner_user_id
        WHERE ${w.sql} ORDER BY e.first_seen_at DESC, e.id DESC LIMIT ?`,
      [...w.bindings, limit + 1],
    )
  )
  const series = new Map<string, number>()
  const bars: Record<'device_type' | 'vendor' | 'group', { label: string; value: number }[]> = { device_type: [], vendor: [], group: [] }
  for (const r of summary) {
    const n = countOf(r.n)
    if (r.part === 'series' && r.label) series.set(r.label, n)
    else if (r.part !== 'series') bars[r.part].push({ label: r.label || '—', value: n })
  }
  const total = [...series.values()].reduce((a, b) => a + b, 0)
  const sort = (xs: { label: string; value: number }[]) => xs.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label))
  const per = grain === 'day' ? { en: 'per day', ru: 'по дням' } : { en: 'per month', ru: 'по месяцам' }
  const profiled = bars.device_type.filter((b) => b.label !== '—').reduce((a, b) => a + b.value, 0)
  return {
    figures: [
      { label: { en: 'New endpoints', ru: 'Новые устройства' }, value: total },
      { label: { en: 'With a device type', ru: 'С определённым типом' }, value: profiled },
      { label: { en: 'Device types', ru: 'Типы устройств' }, value: bars.device_type.filter((b) => b.label !== '—').length },
    ],
    charts: [
      timeSeries({ en: `First seen ${per.en}`, ru: `Впервые замечены ${per.ru}` }, series, q.from, q.to, grain),
      barChart({ en: 'By device type', ru: 'По типу устройства' }, sort(bars.device_type)),
      barChart({ en: 'By vendor', ru: 'По производителю' }, sort(bars.vendor)),
      barChart({ en: 'By endpoint group', ru: 'По группе устройств' }, sort(bars.group)),
    ],
    columns: [
      { key: 'first_seen', title: { en: 'First seen', ru: 'Впервые замечено' }, type: 'timestamp' },
      { key: 'mac', title: { en: 'MAC address', ru: 'MAC-адрес' }, type: 'text' },
      { key: 'vendor', title: { en: 'Vendor', ru: 'Производитель' }, type: 'text' },
      { key: 'device_type', title: { en: 'Device type', ru: 'Тип устройства' }, type: 'text' },
      { key: 'endpoint_group', title: { en: 'Endpoint group', ru: 'Группа устройств' }, type: 'text' },
      { key: 'owner', title: { en: 'Owner', ru: 'Владелец' }, type: 'text' },
      { key: 'last_nas', title: { en: 'Last NAS', ru: 'Последний NAS' }, type: 'text' },
      { key: 'last_seen', title: { en: 'Last seen', ru: 'Последний раз замечено' }, type: 'timestamp' },
      { key: 'last_result', title: { en: 'Last result', ru: 'Последний результат' }, type: 'text' },
    ],
    rows: detail.slice(0, limit).map((r) => ({
      first_seen: isoTime(r.first_seen_at),
      mac: r.mac,
      vendor: r.vendor,
      device_type: r.device_type,
      endpoint_group: r.endpoint_group,
      owner: r.owner,
      last_nas: r.last_nas_ip,
      last_seen: isoTime(r.last_seen_at),
      last_result: r.last_auth_result,
    })),
    truncated: detail.length > limit,
    totalRows: total,
  }
}
