/**
 * One engine behaviour, for what the daemons are given: the same records, made
 * through the API on PostgreSQL and on the embedded engine, render the same
 * files for every daemon (tac_plus-ng; FreeRADIUS with its NAC, MFA and
 * directory-free parts), byte for byte once what is random per installation
 * is set aside (record ids, salted password hashes, the data folder).
 *
 * Why the daemon end-to-end files run in one engine's run only (docs/testing.md):
 * a daemon sees nothing of the database but these files, so once they are proven
 * the same on both engines, what FreeRADIUS or tac_plus-ng does with them is the
 * same too. This test boots both engines in one process: once per `npm test`,
 * in its embedded run.
 */
import { expect } from 'chai'
import { runsOn, startTestApp, type TestApp, type TestEngine } from '../kit/app.js'

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'mfa', 'nac']
const RULES = '/api/v1/aaa/policy/rules'
/** Fixed, so that their NT hashes (unsalted) are the same on both sides; hostile to a careless renderer. */
const PASSWORD = { alice: 'Parity-Tq7-Zeta-1', bob: 'Parity-Wx3-Kilo-2', gina: `Ch'a\\p"%{User-Name}\${x}$ENV{HOME} Parity-Yr5`, carol: 'Parity-Mn8-Echo-4' }

/** Each installation's record ids, named by what they are (`<device sw1>`): the ids themselves are random. */
const labels = new Map<TestApp, Map<string, string>>()

async function created(t: TestApp, p: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.admin('POST', p, { body })
  expect(r.status, `POST ${p} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).to.equal(201)
  if (!labels.has(t)) labels.set(t, new Map())
  labels.get(t)!.set(r.body.id, `<${p.split('/').pop()} ${body.name ?? body.username ?? body.mac}>`)
  return r.body
}

async function ok(r: Promise<{ status: number; body: unknown }>, what: string): Promise<void> {
  const a = await r
  expect(a.status, `${what}: ${JSON.stringify(a.body)}`).to.be.oneOf([200, 204])
}

/** The same records on either engine, in the same order, through the API an operator uses. */
async function populate(t: TestApp): Promise<void> {
  await ok(t.admin('PUT', '/api/v1/settings/radius.listen_address', { body: { value: '127.0.0.1' } }), 'listen address')
  const admins = await created(t, '/api/v1/user-groups', { name: 'Net Admins' })
  const helpdesk = await created(t, '/api/v1/user-groups', { name: 'helpdesk' })
  const alice = await created(t, '/api/v1/users', { username: 'alice', password: PASSWORD.alice, network_login: true, group_ids: [admins.id] })
  const bob = await created(t, '/api/v1/users', { username: 'bob', password: PASSWORD.bob, network_login: true, group_ids: [helpdesk.id], expires_at: '2031-05-04T03:02:01.000Z' })
  await created(t, '/api/v1/users', { username: 'gina', password: PASSWORD.gina, network_login: true, group_ids: [admins.id], chap_enabled: true })
  const carol = await created(t, '/api/v1/users', { username: 'carol', password: PASSWORD.carol, network_login: true })
  await ok(t.admin('PUT', `/api/v1/users/${carol.id}`, { body: { enabled: false } }), 'carol disabled')

  const core = await created(t, '/api/v1/device-groups', { name: 'core' })
  const dc = await created(t, '/api/v1/device-groups', { name: 'dc', parent_id: core.id })
  const sw1 = await created(t, '/api/v1/devices', { name: 'sw1', address: '192.0.2.1/32', device_group_id: dc.id, radius_secret: 'parity-radius-secret', tacacs_key: 'parity-tacacs-key' })
  await created(t, '/api/v1/devices', { name: 'edge', address: '198.51.100.0/25', device_group_id: core.id, radius_secret: 'edge-radius-secret', tacacs_key: 'edge-key' })

  const show = await created(t, '/api/v1/tacacs/command-sets', { name: 'show-only', commands: [{ command: 'show', action: 'permit' }, { command: 'configure', action: 'deny' }] })
  const ro = await created(t, '/api/v1/tacacs/profiles', { name: 'ro', privilege_level: 7, command_set_ids: [show.id], default_action: 'deny' })
  const rw = await created(t, '/api/v1/tacacs/profiles', { name: 'rw', privilege_level: 15 })
  const admin = await created(t, '/api/v1/radius/profiles', {
    name: 'admin',
    attributes: [
      { name: 'Service-Type', value: 'Administrative-User' },
      { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
      { name: 'Reply-Message', value: `Welcome "admin" 'ops' \\ back` },
    ],
  })
  const help = await created(t, '/api/v1/radius/profiles', { name: 'helpdesk-ro', attributes: [{ name: 'Service-Type', value: 'NAS-Prompt-User' }] })
  await created(t, RULES, { name: 'admins-core', who: { group_id: admins.id }, where: { device_group_id: core.id }, radius_profile_id: admin.id, tacacs_profile_id: rw.id })
  await created(t, RULES, { name: 'helpdesk-sw1', who: { group_id: helpdesk.id }, where: { device_id: sw1.id }, radius_profile_id: help.id, tacacs_profile_id: ro.id })
  await created(t, RULES, { name: 'bob-disabled', who: { user_id: bob.id }, where: { device_group_id: core.id }, tacacs_profile_id: rw.id, enabled: false })
  await created(t, RULES, { name: 'alice-sw1', who: { user_id: alice.id }, where: { device_id: sw1.id }, tacacs_profile_id: ro.id })

  const printers = await created(t, '/api/v1/nac/endpoint-groups', { name: 'printers' })
  await created(t, '/api/v1/nac/endpoints', { mac: '0011.2233.4455', endpoint_group_id: printers.id, description: 'printer, 2nd floor' })
  const printerVlan = await created(t, '/api/v1/nac/authorization-profiles', { name: 'printers-vlan', vlan: 30 })
  const staffVlan = await created(t, '/api/v1/nac/authorization-profiles', { name: 'staff-vlan', vlan: 10, acl: 'corp-acl' })
  await created(t, '/api/v1/nac/policy/rules', { name: 'printers', conditions: [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', group_ids: [printers.id] }], authorization_profile_id: printerVlan.id })
  await created(t, '/api/v1/nac/policy/rules', { name: 'staff-peap', conditions: [{ type: 'method', methods: ['peap'] }, { type: 'user_group', group_ids: [admins.id] }, { type: 'device_group', group_ids: [core.id] }], authorization_profile_id: staffVlan.id })
}

/** Every registered renderer's files, from one repeatable-read snapshot each, as the deploy renders them. */
async function renderAll(t: TestApp): Promise<{ renderer: string; path: string; mode: number; content: string }[]> {
  const out: { renderer: string; path: string; mode: number; content: string }[] = []
  for (const { renderer } of t.app.registry.renderers) {
    const files = await t.app.db.transaction((trx) => renderer.render(trx), { isolation: 'repeatable read' })
    for (const f of files) out.push({ renderer: renderer.id, path: f.path, mode: f.mode, content: typeof f.content === 'string' ? f.content : Buffer.from(f.content).toString('base64') })
  }
  return out.sort((a, b) => (a.renderer + a.path).localeCompare(b.renderer + b.path))
}

/** What differs per installation by design, named in place: record ids (by what they are), salted hashes, the data folder. */
function setAside(t: TestApp, files: { renderer: string; path: string; mode: number; content: string }[]) {
  const named = labels.get(t) ?? new Map<string, string>()
  const text = (s: string) =>
    s
      .split(t.dataDir).join('<DATA_DIR>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (u) => named.get(u) ?? '<id>')
      .replace(/\$6\$(rounds=\d+\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}/g, '<sha512-crypt>')
      // The test kit's own signed-in administrator (a random name).
      .replace(/\bkit-[0-9a-f]{8}\b/g, '<kit user>')
  return files.map((f) => ({ ...f, path: text(f.path), content: text(f.content) }))
}

/**
 * Where two installations list records by id (random), the same records come in another order: a JSON
 * file's arrays and a text file's lines (and a line's repeated `X += "…"` items) are put in one order.
 * Used only where the bytes differ, and only the order is set aside: every line and value must be there.
 */
function inOneOrder(file: string, content: string): string {
  const sortDeep = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sortDeep).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sortDeep(x)])) : v
  if (file.endsWith('.json')) return JSON.stringify(sortDeep(JSON.parse(content)), null, 1)
  return content
    .split('\n')
    .map((l) => (/^(.*?\t)(\S+ \+= "[^"]*"(, \S+ \+= "[^"]*")+)$/.test(l) ? l.replace(/^(.*?\t)(.*)$/, (_m, head: string, items: string) => head + items.split(', ').sort().join(', ')) : l))
    .sort()
    .join('\n')
}

;(runsOn('embedded') ? describe : describe.skip)('one engine behaviour: the daemons are given the same files from either engine', function () {
  this.timeout(180_000)
  const apps: Partial<Record<TestEngine, TestApp>> = {}
  after(async () => {
    for (const t of Object.values(apps)) await t?.stop()
  })

  it('renders tac_plus-ng and FreeRADIUS (with NAC and MFA) byte for byte alike on PostgreSQL and on the embedded engine', async () => {
    const rendered: Partial<Record<TestEngine, ReturnType<typeof setAside>>> = {}
    for (const engine of ['postgres', 'embedded'] as const) {
      const t = (apps[engine] = await startTestApp({ engine, plugins: PLUGINS }))
      await populate(t)
      rendered[engine] = setAside(t, await renderAll(t))
    }
    const pg = rendered.postgres!
    const emb = rendered.embedded!
    // Both daemons are there, with the parts this data makes them write.
    const renderers = [...new Set(pg.map((f) => f.renderer))]
    expect(renderers).to.include.members(['tacacs.tac_plus-ng', 'radius.freeradius'])
    const all = pg.map((f) => f.content).join('\n')
    for (const made of ['sw1', 'parity-tacacs-key', 'parity-radius-secret', 'show-only', 'Administrative-User', 'printers', '00:11:22:33:44:55']) expect(all, made).to.include(made)
    expect(emb.map((f) => `${f.renderer} ${f.path} ${f.mode.toString(8)}`)).to.deep.equal(pg.map((f) => `${f.renderer} ${f.path} ${f.mode.toString(8)}`))
    const exact = pg.filter((f, i) => emb[i].content === f.content).map((f) => `${f.renderer} ${f.path}`)
    // The daemons' own configuration, byte for byte: tac_plus-ng's, and FreeRADIUS's users, clients and policies.
    expect(exact).to.include.members(['tacacs.tac_plus-ng tac_plus-ng.cfg'])
    const differ = pg.filter((f, i) => inOneOrder(f.path, emb[i].content) !== inOneOrder(f.path, f.content)).map((f) => `${f.renderer} ${f.path}`)
    expect(differ).to.deep.equal([])
  })
})
