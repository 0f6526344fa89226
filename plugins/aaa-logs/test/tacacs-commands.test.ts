/**
 * AaaLogsService.tacacsCommands, as another plugin calls it (configuration tracking's "who changed
 * it"): the authorization and accounting records with a command from the given addresses in the
 * window, newest first, `truncated` past the limit. One app, rows written straight into the tables.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { aaaLogsServiceRef, type AaaLogsService } from '../api.js'

const NODE = randomUUID()
let offset = 0
const common = (timestamp: string, nas_ip: string, username: string) => ({ id: randomUUID(), timestamp: new Date(timestamp), username, nas_ip, node_id: NODE, device_name: 'core-sw1', source_file: '/var/log/tacacs/x.log', source_offset: (offset += 10) })
const authz = (timestamp: string, action: 'permit' | 'deny', command: string | null, o: { nas_ip?: string; username?: string; priv_lvl?: number; session_id?: string } = {}) => ({
  ...common(timestamp, o.nas_ip ?? '192.0.2.1', o.username ?? 'alice'),
  action,
  command,
  priv_lvl: o.priv_lvl ?? 15,
  session_id: o.session_id ?? null,
})
const acct = (timestamp: string, action: 'start' | 'stop', command: string, username = 'alice') => ({ ...common(timestamp, '192.0.2.1', username), action, command })
const at = (s: string) => `2026-11-20T10:${s}Z`

describe('aaa-logs: tacacsCommands (the service other plugins call)', function () {
  this.timeout(60000)
  let t: TestApp
  let logs: AaaLogsService
  before(async () => {
    t = await startTestApp({ plugins: ['aaa-logs'], settings: { 'aaa-logs.ingest_enabled': false } })
    logs = t.app.resolveDeps('aaa-logs', { logs: aaaLogsServiceRef }).logs
    const knex = t.app.db.knex
    await knex('aaa_log_tacacs_authz').insert([
      authz(at('00:05'), 'permit', 'configure terminal <cr>', { session_id: 's1' }),
      authz(at('01:00'), 'deny', 'reload <cr>', { username: 'bob', priv_lvl: 1 }),
      authz(at('02:00'), 'permit', null), // the exec shell's start: no command
      authz(at('03:00'), 'permit', ''),
      authz(at('04:00'), 'permit', 'ip http server <cr>', { nas_ip: '192.0.2.99' }), // another device
      authz(at('05:00'), 'permit', 'no shutdown <cr>', { nas_ip: '2001:db8::7' }),
      authz('2026-11-20T09:59:59Z', 'permit', 'before the window <cr>'),
      authz(at('10:00'), 'permit', 'at the window end <cr>'),
      authz(at('10:01'), 'permit', 'after the window <cr>'),
    ])
    await knex('aaa_log_tacacs_acct').insert([
      acct(at('00:30'), 'stop', 'ip http server <cr>', 'carol'),
      acct('2026-11-20T10:00:00Z', 'start', 'at the window start <cr>'), // `from` is exclusive
    ])
    // An authentication record is no command.
    await knex('aaa_log_tacacs_authn').insert({ ...common(at('00:10'), '192.0.2.1', 'alice'), status: 'success' })
  })
  after(async () => t?.stop())

  const window = { from: new Date('2026-11-20T10:00:00Z'), to: new Date('2026-11-20T10:10:00Z') }

  it('lists the commands of those addresses in the window, both kinds, newest first', async () => {
    const r = await logs.tacacsCommands({ nasIps: ['192.0.2.1', '2001:db8::7'], ...window, limit: 100 })
    expect(r.truncated).to.equal(false)
    expect(r.items.map((i) => [i.kind, i.command, i.username, i.action])).to.deep.equal([
      ['authorization', 'at the window end <cr>', 'alice', 'permit'],
      ['authorization', 'no shutdown <cr>', 'alice', 'permit'],
      ['authorization', 'reload <cr>', 'bob', 'deny'],
      ['accounting', 'ip http server <cr>', 'carol', 'stop'],
      ['authorization', 'configure terminal <cr>', 'alice', 'permit'],
    ])
    const first = r.items[4]
    expect(first).to.deep.include({ timestamp: '2026-11-20T10:00:05.000Z', nas_ip: '192.0.2.1', device_name: 'core-sw1', session_id: 's1', priv_lvl: 15 })
    expect(r.items[3].priv_lvl).to.equal(null)
    expect(r.items[1].nas_ip).to.equal('2001:db8::7')
  })

  it('says truncated past the limit, keeping the newest', async () => {
    const r = await logs.tacacsCommands({ nasIps: ['192.0.2.1'], ...window, limit: 2 })
    expect(r.truncated).to.equal(true)
    expect(r.items.map((i) => i.command)).to.deep.equal(['at the window end <cr>', 'reload <cr>'])
    const exact = await logs.tacacsCommands({ nasIps: ['192.0.2.1'], ...window, limit: 4 })
    expect(exact.truncated).to.equal(false)
    expect(exact.items).to.have.length(4)
  })

  it('answers nothing for other, no or malformed addresses, or an empty window', async () => {
    expect(await logs.tacacsCommands({ nasIps: ['192.0.2.2'], ...window, limit: 10 })).to.deep.equal({ items: [], truncated: false })
    expect(await logs.tacacsCommands({ nasIps: [], ...window, limit: 10 })).to.deep.equal({ items: [], truncated: false })
    expect(await logs.tacacsCommands({ nasIps: ["192.0.2.1'}", 'x', '192.0.2.0/24'], ...window, limit: 10 })).to.deep.equal({ items: [], truncated: false })
    expect(await logs.tacacsCommands({ nasIps: ['192.0.2.1'], from: window.to, to: window.from, limit: 10 })).to.deep.equal({ items: [], truncated: false })
  })
})
