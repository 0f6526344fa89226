/**
 * `kernel.audit`: an extract of the audit trail — who did what to which record, with what outcome
 * (changes through the API, sign-ins and refused ones, lockouts, revocations). The records before
 * and after are never part of it (they are redacted, but a report leaves by mail). The summary is one
 * GROUPING SETS statement over the range (`audit_log (at)` index); the rows are the newest first,
 * stopped at `rowLimit` + 1. The user-group filter keeps what its members did (by account id).
 */
import type { ReportQuery, ReportSection, ReportSource } from '../../sdk/index.js'
import { barChart, reportStatement, bucketSql, countOf, isoTime, reportGrain, stopIfAborted, timeSeries, USER_GROUP_USER_IDS } from '../../sdk/index.js'

const TOP = 15

interface SummaryRow {
  part: 'series' | 'action' | 'actor' | 'actors'
  label: string | null
  outcome: string | null
  n: string | number
}
interface DetailRow {
  at: Date | string
  actor_name: string | null
  action: string
  resource_type: string
  resource_id: string | null
  outcome: string
  reason: string | null
  ip: string | null
}

function where(q: ReportQuery): { sql: string; bindings: string[] } {
  const parts = ['a.at >= ?', 'a.at < ?']
  const bindings = [q.from.toISOString(), q.to.toISOString()]
  if (q.userGroupId !== null) {
    parts.push(`a.actor_id IN (${USER_GROUP_USER_IDS})`)
    bindings.push(q.userGroupId)
  }
  return { sql: parts.join(' AND '), bindings }
}

export const auditReportSource: ReportSource = {
  id: 'kernel.audit',
  title: { en: 'Audit trail', ru: 'Журнал аудита' },
  description: {
    en: 'Who changed what through the API, sign-ins and refused sign-ins, lockouts and revocations, with their outcome.',
    ru: 'Кто что изменил через API, входы и отказы во входе, блокировки и отзывы, с результатом.',
  },
  permission: 'audit.read',
  filters: ['user_group'],
  async run(q: ReportQuery): Promise<ReportSection> {
    const w = where(q)
    const grain = reportGrain(q.from, q.to)
    const bucket = bucketSql('at', grain)
    stopIfAborted(q.signal)
    const summary = (
      await reportStatement<SummaryRow>(
        q,
        `WITH g AS (
           SELECT ${bucket} AS b, outcome, action, coalesce(actor_name, '') AS actor, count(*) AS n,
                  GROUPING(${bucket}) AS gb, GROUPING(action) AS ga, GROUPING(coalesce(actor_name, '')) AS gu
             FROM audit_log a WHERE ${w.sql}
            GROUP BY GROUPING SETS ((${bucket}, outcome), (action), (coalesce(actor_name, '')))
         )
         SELECT 'series' AS part, b AS label, outcome, n FROM g WHERE gb = 0
         UNION ALL (SELECT 'action', action, NULL, n FROM g WHERE ga = 0 ORDER BY n DESC, action LIMIT ${TOP})
         UNION ALL (SELECT 'actor', actor, NULL, n FROM g WHERE gu = 0 AND actor <> '' ORDER BY n DESC, actor LIMIT ${TOP})
         UNION ALL SELECT 'actors', NULL, NULL, count(*) FROM g WHERE gu = 0 AND actor <> ''`,
        w.bindings,
      )
    )
    stopIfAborted(q.signal)
    const limit = Math.max(0, Math.floor(q.rowLimit))
    const detail = (
      await reportStatement<DetailRow>(
        q,
        `SELECT a.at, a.actor_name, a.action, a.resource_type, a.resource_id, a.outcome, a.reason, a.ip
           FROM audit_log a WHERE ${w.sql} ORDER BY a.at DESC, a.id DESC LIMIT ?`,
        [...w.bindings, limit + 1],
      )
    )
    const perOutcome = new Map<string, Map<string, number>>()
    const actions: { label: string; value: number }[] = []
    const actors: { label: string; value: number }[] = []
    let actorCount = 0
    for (const r of summary) {
      const n = countOf(r.n)
      if (r.part === 'series' && r.label && r.outcome) {
        const m = perOutcome.get(r.outcome) ?? new Map<string, number>()
        m.set(r.label, n)
        perOutcome.set(r.outcome, m)
      } else if (r.part === 'action') actions.push({ label: r.label ?? '', value: n })
      else if (r.part === 'actor') actors.push({ label: r.label ?? '', value: n })
      else if (r.part === 'actors') actorCount = n
    }
    const all = new Map<string, number>()
    let entries = 0
    for (const m of perOutcome.values()) for (const [b, n] of m) (all.set(b, (all.get(b) ?? 0) + n), (entries += n))
    const failures = [...(perOutcome.get('failure')?.values() ?? [])].reduce((a, b) => a + b, 0)
    const sort = (xs: { label: string; value: number }[]) => xs.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label))
    const per = grain === 'day' ? { en: 'per day', ru: 'по дням' } : { en: 'per month', ru: 'по месяцам' }
    return {
      figures: [
        { label: { en: 'Entries', ru: 'Записи' }, value: entries },
        { label: { en: 'Refused or failed', ru: 'Отказы и ошибки' }, value: failures },
        { label: { en: 'Actors', ru: 'Участники' }, value: actorCount },
      ],
      charts: [
        timeSeries({ en: `Entries ${per.en}`, ru: `Записи ${per.ru}` }, all, q.from, q.to, grain),
        timeSeries({ en: `Refused or failed ${per.en}`, ru: `Отказы и ошибки ${per.ru}` }, perOutcome.get('failure') ?? new Map(), q.from, q.to, grain),
        barChart({ en: 'By action', ru: 'По действию' }, sort(actions)),
        barChart({ en: 'Most active actors', ru: 'Самые активные участники' }, sort(actors)),
      ],
      columns: [
        { key: 'time', title: { en: 'Time', ru: 'Время' }, type: 'timestamp' },
        { key: 'actor', title: { en: 'Actor', ru: 'Кто' }, type: 'text' },
        { key: 'action', title: { en: 'Action', ru: 'Действие' }, type: 'text' },
        { key: 'resource', title: { en: 'Resource', ru: 'Объект' }, type: 'text' },
        { key: 'outcome', title: { en: 'Outcome', ru: 'Результат' }, type: 'text' },
        { key: 'reason', title: { en: 'Reason', ru: 'Причина' }, type: 'text' },
        { key: 'address', title: { en: 'Client address', ru: 'Адрес клиента' }, type: 'text' },
      ],
      rows: detail.slice(0, limit).map((r) => ({
        time: isoTime(r.at),
        actor: r.actor_name,
        action: r.action,
        resource: r.resource_id ? `${r.resource_type}/${r.resource_id}` : r.resource_type,
        outcome: r.outcome,
        reason: r.reason,
        address: r.ip,
      })),
      truncated: detail.length > limit,
      totalRows: entries,
    }
  },
}
