/**
 * Rule conditions without a database: the time window's minutes as the policy test reads them
 * (services/conditions.ts), and both renderings checked against them at every minute of the week:
 * tac_plus-ng's timespec cron entries (evaluated as mavis_parse.c parse_cron/check_cron do) and
 * FreeRADIUS's regex on `%t` (ctime's text). Client prefixes: parsing, canonical text, containment.
 */
import { expect } from 'chai'
import { compileRules, timeCondition } from '../../radius/renderers/policy.js'
import { cronEntries, renderTimespec, ruleCondition } from '../../tacacs/renderers/rule.js'
import type { PolicyRuleView } from '../api.js'
import { DAYS, inTimeWindow, parseClientPrefix, prefixContains, sourcePrefix, timeWindowProblem, toPolicyWindow, type Day, type StoredTimeWindow } from '../services/conditions.js'
import { sayFrom } from '../../../sdk/index.js'
import en from '../locales/en.js'

const english = sayFrom(en)

const WEEK = 7 * 1440
/** 2026-11-22 is a Sunday: local midnight of it plus m minutes. */
const at = (m: number) => new Date(2026, 10, 22 + Math.floor(m / 1440), Math.floor((m % 1440) / 60), m % 60, 30)

/** A cron entry as parse_cron reads it (numbers, `*`, ranges, lists), matched as check_cron does. */
function cronMatches(entry: string, day: number, hour: number, minute: number): boolean {
  const [min, hr, , , wd] = entry.split(' ')
  // Day of week: 7 is Sunday too (`val %= 7`).
  const field = (f: string, v: number, mod = 1000) =>
    f === '*' || f.split(',').some((p) => (p.includes('-') ? v >= Number(p.split('-')[0]) && v <= Number(p.split('-')[1]) : Number(p) % mod === v))
  return field(min, minute) && field(hr, hour) && field(wd, day, 7)
}

/** ctime(3) of the local time, as FreeRADIUS's %t writes it. */
function ctime(d: Date): string {
  const wd = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getDay()]
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getMonth()]
  const p = (n: number) => String(n).padStart(2, '0')
  return `${wd} ${mon}${String(d.getDate()).padStart(3, ' ')} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${d.getFullYear()}`
}

const WINDOWS: StoredTimeWindow[] = [
  { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' },
  { days: ['mon', 'wed', 'sat'], start: '08:30', end: '18:15' },
  { days: ['fri'], start: '22:00', end: '06:00' },
  { days: ['sun'], start: '23:59', end: '00:01' },
  { days: ['sat', 'sun'], start: '00:00', end: '24:00' },
  { days: ['tue'], start: '12:07', end: '12:08' },
  { days: ['thu'], start: '12:07', end: '12:53' },
  { days: DAYS.slice(), start: '22:45', end: '00:00' },
  { days: ['sun', 'mon'], start: '13:00', end: '07:29' },
]

describe('AAA policy rule conditions: the time window and client prefixes', () => {
  it('labels a window as an operator reads it and splits one crossing midnight into the next day', () => {
    expect(toPolicyWindow(WINDOWS[0]).label).to.equal('Mon-Fri 08:00-18:00')
    expect(toPolicyWindow(WINDOWS[1]).label).to.equal('Mon,Wed,Sat 08:30-18:15')
    expect(toPolicyWindow({ days: ['sat', 'sun', 'mon'], start: '01:00', end: '02:00' }).label).to.equal('Mon,Sat,Sun 01:00-02:00')
    expect(toPolicyWindow(WINDOWS[2]).spans).to.deep.equal([{ days: [5], from: 1320, to: 1440 }, { days: [6], from: 0, to: 360 }])
    // Sunday's night runs into Monday.
    expect(toPolicyWindow(WINDOWS[3]).spans).to.deep.equal([{ days: [0], from: 1439, to: 1440 }, { days: [1], from: 0, to: 1 }])
    expect(timeWindowProblem({ days: ['mon'], start: '08:00', end: '08:00' })?.field).to.equal('time_window.end')
    expect(timeWindowProblem({ days: ['mon'], start: '00:00', end: '24:00' })).to.equal(null)
    expect(timeWindowProblem({ days: ['mon'], start: '00:00', end: '00:00' })?.field).to.equal('time_window.end')
  })

  it('start inclusive, end exclusive: 08:00-18:00 holds at 08:00 and 17:59, not at 07:59 or 18:00', () => {
    const w = toPolicyWindow(WINDOWS[0])
    const monday = 1440
    expect([7 * 60 + 59, 8 * 60, 17 * 60 + 59, 18 * 60].map((m) => inTimeWindow(w, at(monday + m)))).to.deep.equal([false, true, true, false])
    expect(inTimeWindow(w, at(8 * 60 + 30))).to.equal(false) // Sunday
  })

  it('tac_plus-ng timespec entries and the FreeRADIUS %t regex hold at exactly the minutes of the window, every minute of the week', () => {
    for (const stored of WINDOWS) {
      const w = toPolicyWindow(stored)
      const entries = w.spans.flatMap(cronEntries)
      const regex = /^"%t" =~ \/(.*)\/$/.exec(timeCondition(w.spans))![1]
      const re = new RegExp(regex)
      const wrong: string[] = []
      for (let m = 0; m < WEEK; m += 1) {
        const d = at(m)
        const want = inTimeWindow(w, d)
        const cron = entries.some((e) => cronMatches(e, d.getDay(), d.getHours(), d.getMinutes()))
        const rad = re.test(ctime(d))
        if (cron !== want || rad !== want) wrong.push(`${w.label} at ${ctime(d)}: window ${want}, timespec ${cron}, %t regex ${rad}`)
      }
      expect(wrong.slice(0, 5), entries.join(' / ') + ' ' + regex).to.deep.equal([])
    }
  })

  it('renders both conditions into the tac_plus-ng rule and a timespec named after the rule', () => {
    const rule: PolicyRuleView = {
      id: 'r1', name: 'office-hours', position: 0, enabled: true, is_default: false,
      who: { type: 'user', user_id: 'u', username: 'alice' }, where: { type: 'any' }, tacacs_profile_id: null, radius_profile_id: null,
      time_window: toPolicyWindow(WINDOWS[1]), client_prefixes: ['10.1.0.0/16', '2001:db8::/32'],
    }
    expect(ruleCondition(rule)).to.equal('user == "alice" && (device.address == "10.1.0.0/16" || device.address == "2001:db8::/32") && time == "office-hours"')
    expect(renderTimespec(rule)).to.equal(
      ['# Rule "office-hours": Mon,Wed,Sat 08:30-18:15 (local time)', 'timespec "office-hours" {', '    "30-59 8 * * 1,3,6"', '    "* 9-17 * * 1,3,6"', '    "0-14 18 * * 1,3,6"', '}', ''].join('\n'),
    )
    expect(renderTimespec({ ...rule, time_window: null })).to.equal(null)
  })

  it('renders both conditions into the FreeRADIUS rule, tested after its WHO and WHERE keys matched', () => {
    const rule: PolicyRuleView = {
      id: 'r1', name: 'office-hours', position: 0, enabled: true, is_default: false,
      who: { type: 'user', user_id: 'u', username: 'alice' }, where: { type: 'any' }, tacacs_profile_id: null, radius_profile_id: null,
      time_window: toPolicyWindow({ days: ['fri'], start: '22:00', end: '06:30' }), client_prefixes: ['10.1.0.0/16', '2001:db8::/32'],
    }
    const { rules: [c] } = compileRules({ rules: [rule], users: [], devices: [], deviceGroups: [], profiles: [] } as never)
    expect(c.who).to.match(/^u[0-9]+$/)
    expect(c.where).to.equal('*')
    expect([c.condition]).to.deep.equal([
      '((&Packet-Src-IP-Address && &Packet-Src-IP-Address <= 10.1.0.0/16) || (&Packet-Src-IPv6-Address && &Packet-Src-IPv6-Address <= 2001:db8::/32)) && "%t" =~ /^((Fri) .{6} (22:[0-9][0-9]|23:[0-9][0-9]):|(Sat) .{6} (00:[0-9][0-9]|01:[0-9][0-9]|02:[0-9][0-9]|03:[0-9][0-9]|04:[0-9][0-9]|05:[0-9][0-9]|06:(0[0-9]|1[0-9]|2[0-9])):)/',
    ])
  })

  it('parses client prefixes strictly into canonical text, and tells why not', () => {
    const ok = (s: string) => {
      const p = parseClientPrefix(s)
      return p.ok ? p.text : null
    }
    expect(['10.1.0.0/16', '10.0.0.1', '2001:DB8:0:0::/32', '::/0', '0.0.0.0/0', 'fe80::1'].map(ok)).to.deep.equal([
      '10.1.0.0/16', '10.0.0.1/32', '2001:db8::/32', '::/0', '0.0.0.0/0', 'fe80::1/128',
    ])
    const why = (s: string) => {
      const p = parseClientPrefix(s)
      // The reason is a phrase of the plugin's catalogue, rendered here in English.
      return p.ok ? null : english(p.reason.key, p.reason.vars)
    }
    expect(why('10.1.2.3/16')).to.contain('host bits set').and.contain('10.1.0.0/16')
    expect(why('10.1.0.0/33')).to.contain('0 to 32')
    expect(why('010.1.0.0/16')).to.contain('not an IPv4 or IPv6')
    expect(why('::ffff:10.0.0.0/104')).to.contain('IPv4-mapped')
    expect(why('fe80::1%eth0')).to.contain('not an IPv4 or IPv6')
    expect(why('10.1.0.0/016')).to.contain('0 to 32')
    expect(why('example.com')).to.contain('not an IPv4 or IPv6')
  })

  it('contains a source address, a device prefix only when all of it is inside, and an IPv4-mapped address as IPv4', () => {
    const p = (s: string) => {
      const r = parseClientPrefix(s)
      if (!r.ok) throw new Error(english(r.reason.key, r.reason.vars))
      return r.prefix
    }
    expect(prefixContains(p('10.1.0.0/16'), sourcePrefix('10.1.2.3')!)).to.equal(true)
    expect(prefixContains(p('10.1.0.0/16'), sourcePrefix('10.2.0.1')!)).to.equal(false)
    expect(prefixContains(p('10.1.0.0/16'), sourcePrefix('10.1.2.0/24')!)).to.equal(true)
    expect(prefixContains(p('10.1.0.0/16'), sourcePrefix('10.0.0.0/8')!)).to.equal(false)
    expect(prefixContains(p('10.1.0.0/16'), sourcePrefix('::ffff:10.1.2.3')!)).to.equal(true)
    expect(prefixContains(p('2001:db8::/32'), sourcePrefix('2001:db8:1::5')!)).to.equal(true)
    expect(prefixContains(p('2001:db8::/32'), sourcePrefix('10.1.2.3')!)).to.equal(false)
    expect(prefixContains(p('0.0.0.0/0'), sourcePrefix('192.0.2.1')!)).to.equal(true)
  })

  it('every day name the API takes is a weekday', () => {
    const days: Day[] = [...DAYS]
    expect(toPolicyWindow({ days, start: '00:00', end: '24:00' }).spans[0].days).to.deep.equal([0, 1, 2, 3, 4, 5, 6])
  })
})
