/**
 * `aaa-logs.radius-authentications`: RADIUS and NAC (802.1X, MAB) authentications by result, VLAN
 * and method. The VLAN is the Tunnel-Private-Group-Id the accept carried. One statement over the
 * range groups everything at once (GROUPING SETS); the detail rows are the newest first, stopped at
 * `rowLimit` + 1. The reply attributes themselves are never shown (they can hold keys, e.g.
 * MS-MPPE-*), nor FreeRADIUS's free-text reason: only the reject reason's code.
 */
import { barChart, reportStatement, bucketSql, countOf, isoTime, reportGrain, stopIfAborted, timeSeries, type ReportQuery, type ReportSection, type ReportSource } from '../../../sdk/index.js'
import { LOGS_READ } from '../permissions.js'
import { logFilter, type ReportDeps } from './filters.js'

const TOP = 15
const VLAN = `(SELECT a->>'value' FROM jsonb_array_elements(l.reply_attributes) a WHERE a->>'name' = 'Tunnel-Private-Group-Id' LIMIT 1)`

interface SummaryRow {
  part: 'series' | 'vlan' | 'method' | 'reason' | 'users' | 'endpoints'
  label: string | null
  status: string | null
  n: string | number
}

function summarySql(f: string, bucket: string): string {
  return `WITH ev AS (
      SELECT l.timestamp, l.status, CASE WHEN l.status = 'accept' THEN coalesce(${VLAN}, '') END AS vlan, coalesce(l.auth_type, '') AS method,
             CASE WHEN l.status = 'reject' THEN coalesce(l.reject_reason, '') END AS reason, l.username, upper(l.calling_station_id) AS mac
        FROM aaa_log_radius_auth l WHERE ${f}
    ), g AS (
      SELECT ${bucket} AS b, status, vlan, method, reason, username, mac, count(*) AS n,
             GROUPING(${bucket}) AS gb, GROUPING(vlan) AS gv, GROUPING(method) AS gm, GROUPING(reason) AS gr, GROUPING(username) AS gu, GROUPING(mac) AS ge
        FROM ev GROUP BY GROUPING SETS ((${bucket}, status), (vlan), (method), (reason), (username), (mac))
    )
    SELECT 'series' AS part, b AS label, status, n FROM g WHERE gb = 0
    UNION ALL (SELECT 'vlan', vlan, NULL, n FROM g WHERE gv = 0 AND vlan IS NOT NULL ORDER BY n DESC, vlan LIMIT ${TOP})
    UNION ALL (SELECT 'method', method, NULL, n FROM g WHERE gm = 0 ORDER BY n DESC, method LIMIT ${TOP})
    UNION ALL (SELECT 'reason', reason, NULL, n FROM g WHERE gr = 0 AND reason IS NOT NULL ORDER BY n DESC, reason LIMIT ${TOP})
    UNION ALL SELECT 'users', NULL, NULL, count(*) FROM g WHERE gu = 0
    UNION ALL SELECT 'endpoints', NULL, NULL, count(*) FROM g WHERE ge = 0 AND mac IS NOT NULL AND mac <> ''`
}

interface DetailRow {
  timestamp: Date | string
  username: string
  calling_station_id: string | null
  device_name: string | null
  nas_ip: string | null
  status: string
  reject_reason: string | null
  auth_type: string | null
  vlan: string | null
  rule: string | null
}

export function radiusAuthenticationsSource(deps: ReportDeps): ReportSource {
  return {
    id: 'aaa-logs.radius-authentications',
    title: { en: 'RADIUS and NAC authentications', ru: 'Аутентификации RADIUS и NAC' },
    description: {
      en: 'RADIUS authentications (802.1X, MAB, PAP and the others) by result, VLAN given and method, with the reasons of rejects.',
      ru: 'Аутентификации RADIUS (802.1X, MAB, PAP и другие) по результату, выданному VLAN и методу, с причинами отказов.',
    },
    permission: LOGS_READ,
    filters: deps.inventory ? ['device_group', 'user_group'] : ['user_group'],
    run: (q) => runRadiusAuthentications(q, deps),
  }
}

const none = (s: string | null, dash: string) => (s === null || s === '' ? dash : s)

export async function runRadiusAuthentications(q: ReportQuery, deps: ReportDeps): Promise<ReportSection> {
  const f = await logFilter(q, deps, { secrets: false })
  stopIfAborted(q.signal)
  const grain = reportGrain(q.from, q.to)
  const summary = await reportStatement<SummaryRow>(q, summarySql(f.sql, bucketSql('timestamp', grain)), f.bindings)
  stopIfAborted(q.signal)
  const limit = Math.max(0, Math.floor(q.rowLimit))
  const detail = (
    await reportStatement<DetailRow>(
      q,
      `SELECT l.timestamp, l.username, l.calling_station_id, l.device_name, host(l.nas_ip) AS nas_ip, l.status, l.reject_reason, l.auth_type,
              ${VLAN} AS vlan, coalesce(l.rule_label, l.rule_name) AS rule
         FROM aaa_log_radius_auth l WHERE ${f.sql} ORDER BY l.timestamp DESC, l.id DESC LIMIT ?`,
      [...f.bindings, limit + 1],
    )
  )

  const perStatus = new Map<string, Map<string, number>>()
  const bars: Record<'vlan' | 'method' | 'reason', { label: string; value: number }[]> = { vlan: [], method: [], reason: [] }
  let users = 0
  let endpoints = 0
  for (const r of summary) {
    const n = countOf(r.n)
    if (r.part === 'series' && r.label && r.status) {
      const m = perStatus.get(r.status) ?? new Map<string, number>()
      m.set(r.label, n)
      perStatus.set(r.status, m)
    } else if (r.part === 'users') users = n
    else if (r.part === 'endpoints') endpoints = n
    else if (r.part === 'vlan' || r.part === 'method' || r.part === 'reason') bars[r.part].push({ label: none(r.label, '—'), value: n })
  }
  const sum = (s: string) => [...(perStatus.get(s)?.values() ?? [])].reduce((a, b) => a + b, 0)
  const accepted = sum('accept')
  const rejected = sum('reject')
  const sort = (xs: { label: string; value: number }[]) => xs.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label))
  const per = grain === 'day' ? { en: 'per day', ru: 'по дням' } : { en: 'per month', ru: 'по месяцам' }
  return {
    figures: [
      { label: { en: 'Authentications', ru: 'Аутентификации' }, value: accepted + rejected },
      { label: { en: 'Accepted', ru: 'Принято' }, value: accepted },
      { label: { en: 'Rejected', ru: 'Отклонено' }, value: rejected },
      { label: { en: 'Users', ru: 'Пользователи' }, value: users },
      { label: { en: 'Endpoints (MAC addresses)', ru: 'Оконечные устройства (MAC-адреса)' }, value: endpoints },
    ],
    charts: [
      timeSeries({ en: `Accepted ${per.en}`, ru: `Принято ${per.ru}` }, perStatus.get('accept') ?? new Map(), q.from, q.to, grain),
      timeSeries({ en: `Rejected ${per.en}`, ru: `Отклонено ${per.ru}` }, perStatus.get('reject') ?? new Map(), q.from, q.to, grain),
      barChart({ en: 'Accepts by VLAN', ru: 'Принятые по VLAN' }, sort(bars.vlan)),
      barChart({ en: 'By method', ru: 'По методу' }, sort(bars.method)),
      barChart({ en: 'Rejects by reason', ru: 'Отказы по причине' }, sort(bars.reason)),
    ],
    columns: [
      { key: 'time', title: { en: 'Time', ru: 'Время' }, type: 'timestamp' },
      { key: 'user', title: { en: 'User', ru: 'Пользователь' }, type: 'text' },
      { key: 'mac', title: { en: 'MAC address', ru: 'MAC-адрес' }, type: 'text' },
      { key: 'device', title: { en: 'Device', ru: 'Устройство' }, type: 'text' },
      { key: 'device_address', title: { en: 'Device address', ru: 'Адрес устройства' }, type: 'text' },
      { key: 'result', title: { en: 'Result', ru: 'Результат' }, type: 'text' },
      { key: 'reject_reason', title: { en: 'Reject reason', ru: 'Причина отказа' }, type: 'text' },
      { key: 'method', title: { en: 'Method', ru: 'Метод' }, type: 'text' },
      { key: 'vlan', title: { en: 'VLAN', ru: 'VLAN' }, type: 'text' },
      { key: 'rule', title: { en: 'Rule', ru: 'Правило' }, type: 'text' },
    ],
    rows: detail.slice(0, limit).map((r) => ({
      time: isoTime(r.timestamp),
      user: r.username,
      mac: r.calling_station_id,
      device: r.device_name,
      device_address: r.nas_ip,
      result: r.status,
      reject_reason: r.reject_reason,
      method: r.auth_type,
      vlan: r.vlan,
      rule: r.rule,
    })),
    truncated: detail.length > limit,
    totalRows: accepted + rejected,
  }
}
