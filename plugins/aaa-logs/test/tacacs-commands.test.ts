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
const base = (o: Record<string, unknown>) => ({ id: randomUUID(), username: 'alice', node_id: NODE, device_name: 'core-sw1', source_file: '/var/log/tacacs/x.log', source_offset: (offset += 10), ...o })
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
      base({ timestamp: at('00:05'), action: 'permit', command: 'configure terminal <cr>', priv_lvl: 15, session_id: 's1' }),
      base({ timestamp: at('01:00'), action: 'deny', command: 'reload <cr>', username: 'bob', priv_lvl: 1 }),
      base({ timestamp: at('02:00'), action: 'permit', command: null }), // the exec shell's start: no command
      base({ timestamp: at('03:00'), action: 'permit', command: '' }),
      base({ timestamp: at('04:00'), action: 'permit', command: 'ip http server <cr>', nas_ip: '192.0.2.99' }), // another device
      base({ timestamp: at('05:00'), action: 'permit', command: 'no shutdown <cr>', nas_ip: '2001:db8::7' }),
      base({ timestamp: '2026-11-20T09:59:59Z', action: 'permit', command: 'before the window <cr>' }),
      base({ timestamp: at('10:00'), action: 'permit', command: 'at the window end <cr>' }),
      base({ timestamp: at('10:01'), action: 'permit', command: 'after the window <cr>' }),
    ].map((r) => ({ nas_ip: '192.0.2.1', ...r })))
    await knex('aaa_log_tacacs_acct').insert([
      base({ timestamp: at('00:30'), action: 'stop', command: 'ip http server <cr>', nas_ip: '192.0.2.1', username: 'carol' }),
      base({ timestamp: '2026-11-20T10:00:00Z', action: 'start', command: 'at the window start <cr>', nas_ip: '192.0.2.1' }), // `from` is exclusive
    ])
    // An authentication record is no command.
    await knex('aaa_log_tacacs_authn').insert(base({ timestamp: at('00:10'), status: 'success', nas_ip: '192.0.2.1' }))
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
