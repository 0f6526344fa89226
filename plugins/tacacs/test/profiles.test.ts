/**
 * /api/v1/tacacs/profiles: CRUD with defaults, strict validation and checked
 * command set references, the list, the references report; and the service
 * other plugins use (authorizeCommand, renderProfile) on stored data.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createTacacsService } from '../services/tacacs-service.js'
import { createProfile, createSet, expectError, expectIdChecked, uniq } from './helpers.js'

const BASE = '/api/v1/tacacs/profiles'
const FIELDS = ['id', 'name', 'description', 'privilege_level', 'shell_attributes', 'command_set_ids', 'default_action', 'services', 'enable_mode', 'enable_privilege_level', 'has_enable_secret', 'created_at', 'updated_at']

describe('tacacs profiles API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'tacacs'] })
  })
  after(async () => t?.stop())

  describe('create, read, update, delete', () => {
    it('creates a profile with defaults', async () => {
      const name = uniq('p')
      const r = await t.admin('POST', BASE, { body: { name } })
      expect(r.status).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, description: null, privilege_level: 1, default_action: 'deny' })
      expect(r.body.shell_attributes).to.deep.equal([])
      expect(r.body.command_set_ids).to.deep.equal([])
      expect((await t.admin('GET', `${BASE}/${r.body.id}`)).body).to.deep.equal(r.body)
    })

    it('keeps the command sets in the order given, and the shell attributes', async () => {
      const [a, b, c] = [await createSet(t), await createSet(t), await createSet(t)]
      const attrs = [
        { name: 'idletime', value: '10' },
        { name: 'autocmd', value: 'show users' },
        { name: 'empty', value: '' },
      ]
      const p = await createProfile(t, { privilege_level: 15, default_action: 'permit', shell_attributes: attrs, command_set_ids: [c.id, a.id, b.id] })
      expect(p.command_set_ids).to.deep.equal([c.id, a.id, b.id])
      expect(p.shell_attributes).to.deep.equal(attrs)
      expect(p).to.include({ privilege_level: 15, default_action: 'permit' })
      expect((await t.admin('GET', `${BASE}/${p.id}`)).body.command_set_ids).to.deep.equal([c.id, a.id, b.id])
    })

    it('updates only the fields given; lists replace the whole list', async () => {
      const [a, b] = [await createSet(t), await createSet(t)]
      const p = await createProfile(t, { description: 'd', shell_attributes: [{ name: 'timeout', value: '5' }], command_set_ids: [a.id, b.id] })
      const r1 = await t.admin('PUT', `${BASE}/${p.id}`, { body: { privilege_level: 0 } })
      expect(r1.status).to.equal(200)
      expect(r1.body).to.include({ name: p.name, description: 'd', privilege_level: 0, default_action: 'deny' })
      expect(r1.body.command_set_ids).to.deep.equal([a.id, b.id])
      expect(r1.body.shell_attributes).to.deep.equal([{ name: 'timeout', value: '5' }])
      const r2 = await t.admin('PUT', `${BASE}/${p.id}`, { body: { command_set_ids: [b.id], shell_attributes: [], description: null, default_action: 'permit' } })
      expect(r2.body).to.include({ description: null, default_action: 'permit' })
      expect(r2.body.command_set_ids).to.deep.equal([b.id])
      expect(r2.body.shell_attributes).to.deep.equal([])
    })

    it('refuses a command set that does not exist (422 REFERENCE_NOT_FOUND at the item), changing nothing', async () => {
      const a = await createSet(t)
      const missing = randomUUID()
      expectError(await t.admin('POST', BASE, { body: { name: uniq('p'), command_set_ids: [a.id, missing] } }), 422, 'REFERENCE_NOT_FOUND', 'command_set_ids[1]')
      const p = await createProfile(t, { command_set_ids: [a.id] })
      expectError(await t.admin('PUT', `${BASE}/${p.id}`, { body: { name: uniq('renamed'), command_set_ids: [missing] } }), 422, 'REFERENCE_NOT_FOUND', 'command_set_ids[0]')
      expect((await t.admin('GET', `${BASE}/${p.id}`)).body).to.deep.equal(p)
    })

    it('deletes a profile, leaving its command sets', async () => {
      const a = await createSet(t)
      const p = await createProfile(t, { command_set_ids: [a.id] })
      expect((await t.admin('DELETE', `${BASE}/${p.id}`)).status).to.equal(204)
      expectError(await t.admin('GET', `${BASE}/${p.id}`), 404, 'NOT_FOUND', 'profile_id')
      expect((await t.admin('GET', `/api/v1/tacacs/command-sets/${a.id}`)).status).to.equal(200)
    })

    it('answers 404 naming profile_id for an unknown id, 422 for a malformed one', async () => {
      await expectIdChecked(t, BASE, 'profile_id')
    })

    it('writes every change to the audit trail', async () => {
      const p = await createProfile(t)
      await t.admin('PUT', `${BASE}/${p.id}`, { body: { privilege_level: 3 } })
      await t.admin('DELETE', `${BASE}/${p.id}`)
      const rows = await t.app.db.knex('audit_log').where({ resource_id: p.id }).orderBy('at').select('action')
      expect(rows.map((r) => r.action)).to.deep.equal(['tacacs.profile.create', 'tacacs.profile.update', 'tacacs.profile.delete'])
    })
  })

  describe('validation and conflicts', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['an unknown field', { name: 'x', priv: 1 }, 'UNKNOWN_FIELD', 'priv'],
      ['no name', {}, 'FIELD_REQUIRED', 'name'],
      ['a name with a slash', { name: 'a/b' }, 'VALIDATION_FAILED', 'name'],
      ['a privilege level of 16', { name: 'x', privilege_level: 16 }, 'VALIDATION_FAILED', 'privilege_level'],
      ['a privilege level of -1', { name: 'x', privilege_level: -1 }, 'VALIDATION_FAILED', 'privilege_level'],
      ['a privilege level as text', { name: 'x', privilege_level: '1' }, 'VALIDATION_FAILED', 'privilege_level'],
      ['an unknown default action', { name: 'x', default_action: 'allow' }, 'VALIDATION_FAILED', 'default_action'],
      ['31 shell attributes', { name: 'x', shell_attributes: Array.from({ length: 31 }, (_, i) => ({ name: `a${i}`, value: '1' })) }, 'VALIDATION_FAILED', 'shell_attributes'],
      ['an attribute name with two colons', { name: 'x', shell_attributes: [{ name: 'shell:roles:x', value: 'x' }] }, 'VALIDATION_FAILED', 'shell_attributes[0].name'],
      ['an attribute name ending in a colon', { name: 'x', shell_attributes: [{ name: 'shell:', value: 'x' }] }, 'VALIDATION_FAILED', 'shell_attributes[0].name'],
      ['an attribute name starting with a digit', { name: 'x', shell_attributes: [{ name: '1a', value: 'x' }] }, 'VALIDATION_FAILED', 'shell_attributes[0].name'],
      ['an attribute name of 65 characters', { name: 'x', shell_attributes: [{ name: 'a'.repeat(65), value: 'x' }] }, 'VALIDATION_FAILED', 'shell_attributes[0].name'],
      ['an attribute value with ${…}', { name: 'x', shell_attributes: [{ name: 'autocmd', value: '${MASTER_KEY}' }] }, 'VALIDATION_FAILED', 'shell_attributes[0].value'],
      ['an attribute value with a line break', { name: 'x', shell_attributes: [{ name: 'autocmd', value: 'a\nb' }] }, 'VALIDATION_FAILED', 'shell_attributes[0].value'],
      ['an attribute value of 251 characters', { name: 'x', shell_attributes: [{ name: 'autocmd', value: 'v'.repeat(251) }] }, 'VALIDATION_FAILED', 'shell_attributes[0].value'],
      ['an attribute value with a non-ASCII character', { name: 'x', shell_attributes: [{ name: 'autocmd', value: 'café' }] }, 'VALIDATION_FAILED', 'shell_attributes[0].value'],
      ['priv-lvl as an attribute', { name: 'x', shell_attributes: [{ name: 'timeout', value: '1' }, { name: 'Priv-Lvl', value: '15' }] }, 'SHELL_ATTRIBUTE_RESERVED', 'shell_attributes[1].name'],
      ['cmd as an attribute', { name: 'x', shell_attributes: [{ name: 'cmd', value: 'x' }] }, 'SHELL_ATTRIBUTE_RESERVED', 'shell_attributes[0].name'],
      ['a duplicate command set', { name: 'x', command_set_ids: ['6f1c2b1e-0000-4000-8000-000000000000', '6f1c2b1e-0000-4000-8000-000000000000'] }, 'VALIDATION_FAILED', 'command_set_ids'],
      ['a command set id that is not a UUID', { name: 'x', command_set_ids: ['x'] }, 'VALIDATION_FAILED', 'command_set_ids[0]'],
    ]
    for (const [what, body, code, field] of cases) {
      it(`refuses ${what} (422 ${code} at ${field})`, async () => {
        expectError(await t.admin('POST', BASE, { body }), 422, code, field)
      })
    }

    it('refuses a name taken, case-insensitively (409 TACACS_PROFILE_NAME_TAKEN)', async () => {
      const p = await createProfile(t)
      expectError(await t.admin('POST', BASE, { body: { name: p.name.toUpperCase() } }), 409, 'TACACS_PROFILE_NAME_TAKEN', 'name')
      const other = await createProfile(t)
      expectError(await t.admin('PUT', `${BASE}/${other.id}`, { body: { name: p.name } }), 409, 'TACACS_PROFILE_NAME_TAKEN', 'name')
    })

    it('takes the same command set given in two letter cases as one (and refuses it twice)', async () => {
      const a = await createSet(t)
      const r = await t.admin('POST', BASE, { body: { name: uniq('p'), command_set_ids: [a.id.toUpperCase()] } })
      expect(r.status).to.equal(201)
      expect(r.body.command_set_ids).to.deep.equal([a.id])
      expectError(await t.admin('POST', BASE, { body: { name: uniq('p'), command_set_ids: [a.id, a.id.toUpperCase()] } }), 422, 'VALIDATION_FAILED', 'command_set_ids')
    })
  })

  describe('the list', () => {
    let tag: string
    before(async () => {
      tag = uniq('plst')
      for (const [n, d] of [['b', 'second'], ['a', 'Special one'], ['c', null]] as const) await createProfile(t, { name: `${tag}-${n}`, description: d })
    })

    it('lists, searches name and description, sorts and pages', async () => {
      const r = await t.admin('GET', `${BASE}?search=${tag}`)
      expect(r.body.items.map((i: any) => i.name.slice(-1))).to.deep.equal(['a', 'b', 'c'])
      expect(Object.keys(r.body.items[0]).sort()).to.deep.equal([...FIELDS].sort())
      expect((await t.admin('GET', `${BASE}?search=special%20ONE`)).body.items.map((i: any) => i.name)).to.deep.equal([`${tag}-a`])
      const desc = await t.admin('GET', `${BASE}?search=${tag}&sort_by=created_at&sort_order=desc&per_page=2`)
      expect(desc.body.items.map((i: any) => i.name.slice(-1))).to.deep.equal(['c', 'a'])
      expect(desc.body).to.include({ pages: 2, total_by_filter: 3 })
      expect((await t.admin('GET', `${BASE}?per_page=101`)).body.field).to.equal('per_page')
      expect((await t.admin('GET', `${BASE}?sort_by=privilege_level`)).body.field).to.equal('sort_by')
    })
  })

  describe('references', () => {
    it('reports nothing blocking and, without an AAA policy loaded, nothing auto-clearing', async () => {
      const p = await createProfile(t)
      expect((await t.admin('GET', `${BASE}/${p.id}/references`)).body).to.deep.equal({ blocking: [], auto_clearing: [] })
    })

    it('reports what the guards registered on references.tacacs_profile answer, by name, and keeps one policy source', async () => {
      const service = createTacacsService(t.app.db)
      const p = await createProfile(t)
      const knex = t.app.db.knex
      expect(await service.references.tacacs_profile.report([p.id], knex)).to.deep.equal({ blocking: [], auto_clearing: [] })
      const named = (id: string, name: string) => ({ type: 'aaa_policy_rule', id, name })
      service.references.tacacs_profile.registerGuard({
        onDelete: 'clear',
        referrers: async (ids) => (ids.includes(p.id) ? [named('r1', 'zeta'), named('r3', 'alpha')] : []),
        clear: async () => undefined,
      })
      expect(await service.references.tacacs_profile.report([p.id], knex)).to.deep.equal({ blocking: [], auto_clearing: [named('r3', 'alpha'), named('r1', 'zeta')] })
      expect((await service.references.tacacs_profile.names([p.id], knex)).get(p.id)).to.equal(p.name)
      // A profile delete is always allowed: no plugin may register a refusing guard.
      expect(() => service.references.tacacs_profile.registerGuard({ onDelete: 'restrict', referrers: async () => [] })).to.throw(/onDelete must be clear/)
      // The owner's delete must see references committed while it waited for the row: READ COMMITTED only.
      const inSnapshot = t.app.db.transaction((trx) => service.references.tacacs_profile.beforeDelete([p.id], trx), { isolation: 'repeatable read' })
      await inSnapshot.then(
        () => expect.fail('beforeDelete ran in a repeatable-read transaction'),
        (e: Error) => expect(e.message).to.match(/needs a READ COMMITTED transaction \(this one is repeatable read\)/),
      )
      const source = { listRules: async () => [] }
      service.registerPolicySource(source)
      expect(service.policySource()).to.equal(source)
      expect(() => service.registerPolicySource({ listRules: async () => [] })).to.throw(/already registered/)
    })
  })

  describe('the service (TacacsService)', () => {
    it('decides commands on stored sets, in the profile order, and renders the profile', async () => {
      const service = createTacacsService(t.app.db)
      const deny = await createSet(t, { name: uniq('deny-run'), commands: [{ command: 'show', action: 'deny', arguments: [{ match_type: 'prefix', value: 'run' }] }] })
      const allow = await createSet(t, { name: uniq('allow-show'), commands: [{ command: 'show', action: 'permit' }, { command: 'ping', action: 'permit' }] })
      const p = await createProfile(t, { privilege_level: 5, command_set_ids: [deny.id, allow.id] })
      const profile = (await service.getProfile(p.id))!
      expect(profile).to.deep.equal(p)
      const run = await service.authorizeCommand(profile, 'show running-config')
      expect(run).to.include({ decision: 'deny' })
      expect(run.matched).to.deep.equal({ command_set_id: deny.id, command_set_name: deny.name, index: 0, command: 'show' })
      expect((await service.authorizeCommand(profile, 'ping 192.0.2.1 <cr>')).matched).to.include({ command_set_id: allow.id, index: 1 })
      expect(await service.authorizeCommand(profile, 'reload')).to.include({ decision: 'deny', matched: null })
      const text = await service.renderProfile(profile)
      expect(text.indexOf(`# command set ${deny.name}`)).to.be.below(text.indexOf(`# command set ${allow.name}`))
      expect(text).to.contain('set priv-lvl = 5')
      expect((await service.getCommandSet(deny.id))!.commands).to.have.length(1)
      expect((await service.listCommandSets()).map((s) => s.id)).to.include.members([deny.id, allow.id])
      expect((await service.listProfiles()).map((s) => s.id)).to.include(p.id)
      expect(await service.getProfile(randomUUID())).to.equal(null)
    })
  })
})
