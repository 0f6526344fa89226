/**
 * `pki.certificate-expiry`: the certificates this platform issued that expire in [from, to), those
 * already expired flagged, by issuing CA and template. Revoked certificates are left out (they are
 * no longer trusted, whatever their dates); certificates that expired before the window and were
 * never revoked are counted apart. Only names, serials and dates: never a certificate or a key.
 */
import { barChart, reportStatement, bucketSql, countOf, isoTime, reportGrain, stopIfAborted, timeSeries, type ReportQuery, type ReportSection, type ReportSource } from '../../../sdk/index.js'
import { PKI_VIEW } from '../permissions.js'

const TOP = 15
const FROM_WHERE = `FROM pki_certificates c JOIN pki_cas ca ON ca.id = c.ca_id LEFT JOIN pki_templates tp ON tp.id = c.template_id
  WHERE c.revoked_at IS NULL AND c.not_after >= ? AND c.not_after < ?`

interface SummaryRow {
  part: 'series' | 'issuer' | 'template' | 'expired' | 'expired_before'
  label: string | null
  n: string | number
}
interface DetailRow {
  not_after: Date | string
  subject: string
  san: string
  serial: string
  issuer: string
  template: string | null
  expired: boolean
}

export const certificateExpirySource: ReportSource = {
  id: 'pki.certificate-expiry',
  title: { en: 'Certificate expiry', ru: 'Истечение сертификатов' },
  description: {
    en: 'Certificates issued here that expire in the period (those already expired flagged), by issuing CA and template.',
    ru: 'Выпущенные здесь сертификаты, срок которых истекает в периоде (уже истёкшие отмечены), по центру сертификации и шаблону.',
  },
  permission: PKI_VIEW,
  filters: [],
  run: runCertificateExpiry,
}

export async function runCertificateExpiry(q: ReportQuery): Promise<ReportSection> {
  const range = [q.from.toISOString(), q.to.toISOString()]
  const grain = reportGrain(q.from, q.to)
  const bucket = bucketSql('c.not_after', grain)
  stopIfAborted(q.signal)
  const summary = (
    await reportStatement<SummaryRow>(
      q,
      `WITH g AS (
         SELECT ${bucket} AS b, ca.name AS issuer, coalesce(tp.name, '') AS template, count(*) AS n,
                GROUPING(${bucket}) AS gb, GROUPING(ca.name) AS gi, GROUPING(coalesce(tp.name, '')) AS gt
           ${FROM_WHERE}
          GROUP BY GROUPING SETS ((${bucket}), (ca.name), (coalesce(tp.name, '')))
       )
       SELECT 'series' AS part, b AS label, n FROM g WHERE gb = 0
       UNION ALL (SELECT 'issuer', issuer, n FROM g WHERE gi = 0 ORDER BY n DESC, issuer LIMIT ${TOP})
       UNION ALL (SELECT 'template', template, n FROM g WHERE gt = 0 ORDER BY n DESC, template LIMIT ${TOP})
       UNION ALL SELECT 'expired', NULL, count(*) ${FROM_WHERE} AND c.not_after <= now()
       UNION ALL SELECT 'expired_before', NULL, count(*) FROM pki_certificates c WHERE c.revoked_at IS NULL AND c.not_after < ?`,
      [...range, ...range, range[0]],
    )
  )
  stopIfAborted(q.signal)
  const limit = Math.max(0, Math.floor(q.rowLimit))
  const detail = (
    await reportStatement<DetailRow>(
      q,
      `SELECT c.not_after, c.subject, c.san, c.serial, ca.name AS issuer, tp.name AS template, c.not_after <= now() AS expired
         ${FROM_WHERE} ORDER BY c.not_after, c.id LIMIT ?`,
      [...range, limit + 1],
    )
  )
  const series = new Map<string, number>()
  const bars: Record<'issuer' | 'template', { label: string; value: number }[]> = { issuer: [], template: [] }
  let expired = 0
  let expiredBefore = 0
  for (const r of summary) {
    const n = countOf(r.n)
    if (r.part === 'series' && r.label) series.set(r.label, n)
    else if (r.part === 'issuer' || r.part === 'template') bars[r.part].push({ label: r.label || '—', value: n })
    else if (r.part === 'expired') expired = n
    else if (r.part === 'expired_before') expiredBefore = n
  }
  const total = [...series.values()].reduce((a, b) => a + b, 0)
  const sort = (xs: { label: string; value: number }[]) => xs.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label))
  const per = grain === 'day' ? { en: 'per day', ru: 'по дням' } : { en: 'per month', ru: 'по месяцам' }
  return {
    figures: [
      { label: { en: 'Expiring in the period', ru: 'Истекают в периоде' }, value: total },
      { label: { en: 'Of them already expired', ru: 'Из них уже истекли' }, value: expired },
      { label: { en: 'Expired before the period, not revoked', ru: 'Истекли до периода, не отозваны' }, value: expiredBefore },
    ],
    charts: [
      timeSeries({ en: `Expiring ${per.en}`, ru: `Истекают ${per.ru}` }, series, q.from, q.to, grain),
      barChart({ en: 'By issuing CA', ru: 'По центру сертификации' }, sort(bars.issuer)),
      barChart({ en: 'By template', ru: 'По шаблону' }, sort(bars.template)),
    ],
    columns: [
      { key: 'expires', title: { en: 'Expires', ru: 'Истекает' }, type: 'timestamp' },
      { key: 'expired', title: { en: 'Expired', ru: 'Истёк' }, type: 'boolean' },
      { key: 'subject', title: { en: 'Subject', ru: 'Субъект' }, type: 'text' },
      { key: 'san', title: { en: 'Alternative names', ru: 'Альтернативные имена' }, type: 'text' },
      { key: 'serial', title: { en: 'Serial', ru: 'Серийный номер' }, type: 'text' },
      { key: 'issuer', title: { en: 'Issuing CA', ru: 'Центр сертификации' }, type: 'text' },
      { key: 'template', title: { en: 'Template', ru: 'Шаблон' }, type: 'text' },
    ],
    rows: detail.slice(0, limit).map((r) => ({
      expires: isoTime(r.not_after),
      expired: r.expired === true || String(r.expired) === 't',
      subject: r.subject,
      san: r.san,
      serial: r.serial,
      issuer: r.issuer,
      template: r.template,
    })),
    truncated: detail.length > limit,
    totalRows: total,
  }
}
