/**
 * Services beyond shell against the real tac_plus-ng: one profile made through the API with an
 * NX-OS role among its shell attributes (optional, in quotes), Juniper's junos-exec (local user
 * name, allow/deny regexes), and the attribute sets of Fortinet, Palo Alto and Cisco WLC; rendered,
 * run, and asked by the client for each service from the device's address. What the NAS receives
 * (mandatory `name=value`, optional `name*value`, values with `"`, `\`, `$`, `%` as typed) is what
 * the policy test says, and a service the profile does not list (or in another case) is denied by
 * both. Skips without TAC_PLUS_NG.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, RULES, renderAndRun, startAaaApp, strongPassword, type DaemonRun } from './support.js'

const KEY = 'services-e2e-key'
const FROM = '127.26.0.2'

const SHELL_ATTRIBUTES = [
  { name: 'idletime', value: '30' },
  { name: 'shell:roles', value: '"network-admin vdc-admin"', optional: true },
  { name: 'autocmd', value: 'show clock %p 100% $HOME \\d' },
]
const SERVICES = [
  {
    service: 'junos-exec',
    attributes: [
      { name: 'local-user-name', value: 'NOC' },
      { name: 'allow-commands', value: '^(show|ping|traceroute) .*$', optional: true },
      { name: 'deny-commands', value: '^(request|restart) .*|^file delete .*\\.conf$', optional: true },
      { name: 'deny-configuration', value: '"system login"', optional: true },
    ],
  },
  // Optional before mandatory: the NAS still gets the mandatory pairs first.
  { service: 'fortigate', attributes: [{ name: 'admin_prof', value: 'super_admin', optional: true }, { name: 'memberof', value: 'noc-admins' }] },
  { service: 'PaloAlto', attributes: [{ name: 'PaloAlto-Admin-Role', value: 'superreader' }, { name: 'PaloAlto-Admin-Access-Domain', value: 'dom1', optional: true }] },
  { service: 'ciscowlc', attributes: [{ name: 'role1', value: 'ALL' }] },
]

/** An attribute as it travels: `name=value`, or `name*value` when optional. */
const wire = (a: { name: string; value: string; optional?: boolean }) => `${a.name}${a.optional ? '*' : '='}${a.value}`
/** In the order tac_plus-ng sends them: mandatory (`set`) first, then optional (`add`). */
const sent = (attrs: { name: string; value: string; optional?: boolean }[]) => [...attrs.filter((a) => !a.optional), ...attrs.filter((a) => a.optional)].map(wire)

describe('tacacs e2e: services beyond shell (junos-exec, NX-OS roles, fortigate, PaloAlto, ciscowlc) on tac_plus-ng, as the policy test says', function () {
  this.timeout(120_000)
  let t: TestApp
  let run: DaemonRun
  let device: any

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()
    device = await created(t, '/api/v1/devices', { name: 'svc-sw', address: FROM, tacacs_key: KEY })
    const user = await created(t, '/api/v1/users', { username: 'svc-user', password: strongPassword(), network_login: true })
    const p = await created(t, '/api/v1/tacacs/profiles', { name: 'multi-vendor', privilege_level: 15, shell_attributes: SHELL_ATTRIBUTES, services: SERVICES })
    expect(p.services).to.deep.equal(SERVICES)
    expect(p.shell_attributes).to.deep.equal(SHELL_ATTRIBUTES)
    await created(t, RULES, { name: 'svc', who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: p.id, position: 0 })
    run = await renderAndRun(t)
  })
  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  const client = () => new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
  const policy = async (service: string) => {
    const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username: 'svc-user', device_id: device.id, service } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }

  it('each listed service is permitted with exactly its attributes, mandatory and optional as the profile says, as the policy test says', async () => {
    for (const svc of SERVICES) {
      const r = await client().authorize('svc-user', { service: svc.service })
      expect(r.status, svc.service).to.equal('pass_add')
      expect(r.args, svc.service).to.deep.equal(sent(svc.attributes))
      const said = await policy(svc.service)
      expect(said.decision, svc.service).to.equal('permit')
      expect(said.attributes.map(wire), svc.service).to.deep.equal(r.args)
    }
  })

  it('the exec shell gets priv-lvl, the NX-OS role as an optional pair in quotes, and values with %, $ and \\ as typed', async () => {
    const r = await client().authorize('svc-user', { cmd: '' })
    expect(r.status).to.equal('pass_add')
    // Mandatory pairs first, then the optional ones: the daemon's order, and the policy test's.
    expect(r.args).to.deep.equal(['priv-lvl=15', 'idletime=30', 'autocmd=show clock %p 100% $HOME \\d', 'shell:roles*"network-admin vdc-admin"'])
    const said = await policy('shell')
    expect(said.attributes.map(wire)).to.deep.equal(r.args)
  })

  it('a service the profile does not list, or a listed one in another case, is denied by both', async () => {
    for (const service of ['ppp', 'JUNOS-EXEC', 'paloalto', 'arap']) {
      const r = await client().authorize('svc-user', { service })
      expect(r.permitted, service).to.equal(false)
      const said = await policy(service)
      expect(said.decision, service).to.equal('deny')
      expect(said.reason).to.include('which answers service shell, junos-exec, fortigate, PaloAlto, ciscowlc only')
    }
  })

  it('commands are still decided by the shell part (default deny, no command sets)', async () => {
    expect((await client().authorize('svc-user', { cmd: 'show', args: ['version', '<cr>'] })).permitted).to.equal(false)
  })
})
