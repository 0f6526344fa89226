/**
 * `aaa-logs.tacacs-activity`: device administration over TACACS+ — who logged in where, the
 * commands they ran (privileged ones counted apart), what was refused. Everything on the summary
 * comes from ONE statement over the range: authentications and the authorizations that carry a
 * command, grouped at once by bucket and kind, by user and by device (GROUPING SETS), so a month
 * of ten million rows is read once. The detail rows are the newest first, read down the
 * `(timestamp DESC, id DESC)` index of each table and stopped at `rowLimit` + 1.
 */
import { barChart, reportStatement, bucketLabelSql, bucketStartSql, countOf, isoTime, reportGrain, stopIfAborted, timeSeries, type ReportGrain, type ReportQuery, type ReportSection, type ReportSource } from '../../../sdk/index.js'
import { LOGS_READ } from '../permissions.js'
import { logFilter, type ReportDeps } from './filters.js'
import { logTextMasker } from './mask.js'

const TOP = 10

type Kind = 'login' | 'login_failed' | 'command' | 'command_priv' | 'command_denied'
interface SummaryRow {
  part: 'series' | 'users' | 'devices' | 'top_user' | 'top_device'
  label: string | null
  k: Kind | null
  n: string | number
}

/** The summary statement; `f` is the filter's SQL, bound twice (one per table). Grouped by values cheap to hash (a timestamp, an inet), formatted on the few groups. */
export function summarySql(f: string, grain: ReportGrain): string {
  const bucket = bucketStartSql('timestamp', grain)
  return `WITH ev AS (
      SELECT l.timestamp, l.username, l.nas_ip, l.device_name, CASE WHEN l.status = 'success' THEN 'login' ELSE 'login_failed' END AS k
        FROM aaa_log_tacacs_authn l WHERE ${f}
      UNION ALL
      SELECT l.timestamp, l.username, l.nas_ip, l.device_name,
             CASE WHEN l.action = 'deny' THEN 'command_denied' WHEN l.priv_lvl >= 15 THEN 'command_priv' ELSE 'command' END
        FROM aaa_log_tacacs_authz l WHERE ${f} AND l.command <> ''
    ), g AS (
      SELECT ${bucket} AS b, k, username, nas_ip AS nas, max(device_name) AS device_name, count(*) AS n,
             GROUPING(${bucket}, k, username, nas_ip) AS gr
        FROM ev GROUP BY GROUPING SETS ((${bucket}, k), (username), (nas_ip))
    )
    SELECT 'series' AS part, ${bucketLabelSql('b', grain)} AS label, k, n FROM g WHERE gr = 3
    UNION ALL SELECT 'users', NULL, NULL, count(*) FROM g WHERE gr = 13
    UNION ALL SELECT 'devices', NULL, NULL, count(*) FROM g WHERE gr = 14 AND nas IS NOT NULL
    UNION ALL (SELECT 'top_user', username, NULL, n FROM g WHERE gr = 13 ORDER BY n DESC, username LIMIT ${TOP})
    UNION ALL (SELECT 'top_device', CASE WHEN device_name IS NULL THEN host(nas) ELSE device_name || ' (' || host(nas) || ')' END, NULL, n
                 FROM g WHERE gr = 14 AND nas IS NOT NULL ORDER BY n DESC, nas LIMIT ${TOP})`
}

/** The detail statement: both tables' newest `limit` rows, merged. */
export function rowsSql(f: string): string {
  return `SELECT * FROM (
      (SELECT 'login' AS event, l.id, l.timestamp, l.username, host(l.nas_ip) AS nas_ip, l.device_name, l.client_address, l.status AS result,
              NULL::smallint AS priv_lvl, l.message AS detail
         FROM aaa_log_tacacs_authn l WHERE ${f} ORDER BY l.timestamp DESC, l.id DESC LIMIT ?)
      UNION ALL
      (SELECT 'command', l.id, l.timestamp, l.username, host(l.nas_ip), l.device_name, l.client_address, l.action, l.priv_lvl, l.command
         FROM aaa_log_tacacs_authz l WHERE ${f} AND l.command <> '' ORDER BY l.timestamp DESC, l.id DESC LIMIT ?)
    ) r ORDER BY timestamp DESC, id DESC LIMIT ?`
}

interface DetailRow {
  event: 'login' | 'command'
  id: string
  timestamp: Date | string
  username: string
  nas_ip: string | null
  device_name: string | null
  client_address: string | null
  result: string
  priv_lvl: number | string | null
  detail: string | null
}

export function tacacsActivitySource(deps: ReportDeps): ReportSource {
  return {
    id: 'aaa-logs.tacacs-activity',
    title: { en: 'Device administration activity (TACACS+)', ru: 'Администрирование устройств (TACACS+)' },
    description: {
      en: 'Who logged in to which device, the commands they ran (privileged ones apart), failed logins and refused commands.',
      ru: 'Кто входил на какие устройства, какие команды выполнял (привилегированные отдельно), неудачные входы и отклонённые команды.',
    },
    permission: LOGS_READ,
    filters: deps.inventory ? ['device_group', 'user_group'] : ['user_group'],
    run: (q) => runTacacsActivity(q, deps),
  }
}

export async function runTacacsActivity(q: ReportQuery, deps: ReportDeps): Promise<ReportSection> {
  const f = await logFilter(q, deps, { secrets: true })
  stopIfAborted(q.signal)
  const grain = reportGrain(q.from, q.to)
  const summary = await reportStatement<SummaryRow>(q, summarySql(f.sql, grain), [...f.bindings, ...f.bindings])
  stopIfAborted(q.signal)
  const limit = Math.max(0, Math.floor(q.rowLimit))
  const detail = await reportStatement<DetailRow>(q, rowsSql(f.sql), [...f.bindings, limit + 1, ...f.bindings, limit + 1, limit + 1])

  const byKind = new Map<Kind, Map<string, number>>()
  const total = (k: Kind) => [...(byKind.get(k)?.values() ?? [])].reduce((a, b) => a + b, 0)
  let users = 0
  let devices = 0
  const topUsers: { label: string; value: number }[] = []
  const topDevices: { label: string; value: number }[] = []
  for (const r of summary) {
    const n = countOf(r.n)
    if (r.part === 'series' && r.k && r.label) {
      const m = byKind.get(r.k) ?? new Map<string, number>()
      m.set(r.label, n)
      byKind.set(r.k, m)
    } else if (r.part === 'users') users = n
    else if (r.part === 'devices') devices = n
    else if (r.part === 'top_user') topUsers.push({ label: r.label ?? '', value: n })
    else if (r.part === 'top_device') topDevices.push({ label: r.label ?? '', value: n })
  }
  const commandsPerBucket = new Map<string, number>()
  for (const k of ['command', 'command_priv', 'command_denied'] as const) for (const [b, n] of byKind.get(k) ?? []) commandsPerBucket.set(b, (commandsPerBucket.get(b) ?? 0) + n)
  const commands = total('command') + total('command_priv') + total('command_denied')
  const logins = total('login')
  const failed = total('login_failed')
  const sort = (xs: { label: string; value: number }[]) => xs.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label))
  const mask = logTextMasker(f.secretValues)
  const per = grain === 'day' ? { en: 'per day', ru: 'по дням' } : { en: 'per month', ru: 'по месяцам' }

  return {
    figures: [
      { label: { en: 'Logins', ru: 'Входы' }, value: logins },
      { label: { en: 'Failed logins', ru: 'Неудачные входы' }, value: failed },
      { label: { en: 'Commands', ru: 'Команды' }, value: commands },
      { label: { en: 'Privileged commands (level 15)', ru: 'Привилегированные команды (уровень 15)' }, value: total('command_priv') },
      { label: { en: 'Refused commands', ru: 'Отклонённые команды' }, value: total('command_denied') },
      { label: { en: 'Users', ru: 'Пользователи' }, value: users },
      { label: { en: 'Devices', ru: 'Устройства' }, value: devices },
    ],
    charts: [
      timeSeries({ en: `Logins ${per.en}`, ru: `Входы ${per.ru}` }, byKind.get('login') ?? new Map(), q.from, q.to, grain),
      timeSeries({ en: `Failed logins ${per.en}`, ru: `Неудачные входы ${per.ru}` }, byKind.get('login_failed') ?? new Map(), q.from, q.to, grain),
      timeSeries({ en: `Commands ${per.en}`, ru: `Команды ${per.ru}` }, commandsPerBucket, q.from, q.to, grain),
      barChart({ en: 'Most active users', ru: 'Самые активные пользователи' }, sort(topUsers)),
      barChart({ en: 'Most used devices', ru: 'Самые используемые устройства' }, sort(topDevices)),
    ],
    columns: [
      { key: 'time', title: { en: 'Time', ru: 'Время' }, type: 'timestamp' },
      { key: 'event', title: { en: 'Event', ru: 'Событие' }, type: 'text' },
      { key: 'user', title: { en: 'User', ru: 'Пользователь' }, type: 'text' },
      { key: 'device', title: { en: 'Device', ru: 'Устройство' }, type: 'text' },
      { key: 'device_address', title: { en: 'Device address', ru: 'Адрес устройства' }, type: 'text' },
      { key: 'client', title: { en: 'From', ru: 'Откуда' }, type: 'text' },
      { key: 'result', title: { en: 'Result', ru: 'Результат' }, type: 'text' },
      { key: 'privilege', title: { en: 'Privilege level', ru: 'Уровень привилегий' }, type: 'integer' },
      { key: 'detail', title: { en: 'Command or message', ru: 'Команда или сообщение' }, type: 'text' },
    ],
    rows: detail.slice(0, limit).map((r) => ({
      time: isoTime(r.timestamp),
      event: r.event,
      user: r.username,
      device: r.device_name,
      device_address: r.nas_ip,
      client: r.client_address,
      result: r.result,
      privilege: r.priv_lvl === null ? null : Number(r.priv_lvl),
      detail: r.event === 'command' ? mask.command(r.detail) : mask.text(r.detail),
    })),
    truncated: detail.length > limit,
    totalRows: logins + failed + commands,
  }
}
