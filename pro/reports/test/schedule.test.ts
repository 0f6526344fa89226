/** Schedules and ranges without a server: what a cron expression and "last month" mean in a zone. */
import { expect } from 'chai'
import { isPortcullisError } from '@portcullis/sdk'
import { checkCron, nextOccurrence } from '../services/cron.js'
import { isTimeZone, resolveRange } from '../services/time.js'

const refusal = (expr: string): string | null => {
  try {
    checkCron(expr, 'Europe/Berlin', 'schedule.cron', new Date('2026-03-01T00:00:00Z'))
    return null
  } catch (e) {
    if (!isPortcullisError(e)) throw e
    expect(e.field).to.equal('schedule.cron')
    return e.code
  }
}

describe('reports: schedules and time ranges', () => {
  it('accepts hourly and slower five-field schedules, refuses seconds, bursts and never', () => {
    for (const ok of ['0 * * * *', '@hourly', '@daily', '0 */2 * * *', '0 7 * * 1-5', '0 0,23 * * *', '30 6 1 * *']) expect(refusal(ok), ok).to.equal(null)
    expect(refusal('* * * * * *')).to.equal('REPORT_CRON_SECONDS')
    expect(refusal('0 0 7 * * *')).to.equal('REPORT_CRON_SECONDS')
    for (const often of ['* * * * *', '*/59 * * * *', '0,59 * * * *', '0,1 9 * * *']) expect(refusal(often), often).to.equal('REPORT_CRON_TOO_OFTEN')
    for (const bad of ['', 'hourly', '60 * * * *', '0 0 30 2 *', '0 0 * * 8', '0 0 1 1 * 2030 x']) expect(refusal(bad), bad).to.equal('REPORT_CRON_INVALID')
  })

  it('reads a schedule in its zone, across daylight saving time', () => {
    // 07:00 in Berlin is 06:00 UTC in winter and 05:00 UTC in summer (the clocks went forward on 29 March 2026).
    expect(nextOccurrence('0 7 * * *', 'Europe/Berlin', new Date('2026-03-28T12:00:00Z'))!.toISOString()).to.equal('2026-03-29T05:00:00.000Z')
    expect(nextOccurrence('0 7 * * *', 'Europe/Berlin', new Date('2026-03-27T12:00:00Z'))!.toISOString()).to.equal('2026-03-28T06:00:00.000Z')
  })

  it('makes "last month" the previous calendar month of the report\'s zone', () => {
    // March 2026 in Berlin: CET at its start, CEST at its end.
    expect(resolveRange('last_month', { from: null, to: null }, new Date('2026-04-15T12:00:00Z'), 'Europe/Berlin')).to.deep.equal({
      from: new Date('2026-02-28T23:00:00Z'),
      to: new Date('2026-03-31T22:00:00Z'),
    })
    // 09:30 on 1 January in Tokyo is still 31 December in UTC: Tokyo's last month is December.
    expect(resolveRange('last_month', { from: null, to: null }, new Date('2026-01-01T00:30:00Z'), 'Asia/Tokyo')).to.deep.equal({
      from: new Date('2025-11-30T15:00:00Z'),
      to: new Date('2025-12-31T15:00:00Z'),
    })
    const now = new Date('2026-05-10T10:00:00Z')
    expect(resolveRange('last_24h', { from: null, to: null }, now, 'UTC')).to.deep.equal({ from: new Date('2026-05-09T10:00:00Z'), to: now })
  })

  it('knows IANA zone names and nothing else', () => {
    for (const z of ['UTC', 'Europe/Moscow', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) expect(isTimeZone(z), z).to.equal(true)
    for (const z of ['Mars/Olympus', '+03:00', 'MSK+1', '', '../etc/passwd', 'Europe/Berlin\n']) expect(isTimeZone(z), z).to.equal(false)
  })
})
