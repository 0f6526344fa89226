/**
 * /api/v1/tacacs/command-sets, per the contract's "Command sets" table: the
 * list (bounds, search, sorting), nested create and read, the partial update
 * whose `commands` replace the list atomically, the delete refused while a
 * profile uses the set, the references report and counts, and the regex rules.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createProfile, createSet, expectError, expectIdChecked, uniq } from './helpers.js'

const BASE = '/api/v1/tacacs/command-sets'
const FIELDS = ['id', 'name', 'description', 'commands', 'created_at', 'updated_at']
const LIST_FIELDS = ['id', 'name', 'description', 'command_count', 'created_at', 'updated_at']

const COMMANDS = [
  { command: 'show', action: 'permit', arguments: [{ match_type: 'prefix', value: 'run' }, { match_type: 'exact', value: 'version' }] },
  { command: 'configure terminal', action: 'deny' },
  { command: 'interface', action: 'permit', arguments: [{ match_type: 'regex', value: 'Gi\\d+\\x2f\\d+' }] },
]
const STORED = COMMANDS.map((c) => ({ arguments: [], ...c }))

describe('tacacs command sets API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'tacacs'] })
  })
  after(async () => t?.stop())

  describe('create, read, update, delete', () => {
    it('creates a set with nested commands and argument rules, and reads it back whole', async () => {
      const name = uniq('noc')
      const r = await t.admin('POST', BASE, { body: { name, description: 'NOC read-only', commands: COMMANDS } })
      expect(r.status).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, description: 'NOC read-only' })
      expect(r.body.commands).to.deep.equal(STORED)
      expect((await t.admin('GET', `${BASE}/${r.body.id}`)).body).to.deep.equal(r.body)
      const empty = await t.admin('POST', BASE, { body: { name: uniq('empty'), description: '  ' } })
      expect(empty.body).to.include({ description: null })
      expect(empty.body.commands).to.deep.equal([])
    })

    it('updates only the fields given', async () => {
      const set = await createSet(t, { description: 'd1', commands: COMMANDS })
      const a = await t.admin('PUT', `${BASE}/${set.id}`, { body: { description: 'd2' } })
      expect(a.status).to.equal(200)
      expect(a.body).to.include({ name: set.name, description: 'd2' })
      expect(a.body.commands).to.deep.equal(STORED)
      expect(a.body.created_at).to.equal(set.created_at)
      expect(Date.parse(a.body.updated_at)).to.be.at.least(Date.parse(set.updated_at))
      const b = await t.admin('PUT', `${BASE}/${set.id}`, { body: { name: `${set.name}-x` } })
      expect(b.body).to.include({ name: `${set.name}-x`, description: 'd2' })
    })

    it('replaces the entire command list when commands are given', async () => {
      const set = await createSet(t, { commands: COMMANDS })
      const next = [{ command: 'ping', action: 'permit' }]
      const r = await t.admin('PUT', `${BASE}/${set.id}`, { body: { commands: next } })
      expect(r.body.commands).to.deep.equal([{ command: 'ping', action: 'permit', arguments: [] }])
      const cleared = await t.admin('PUT', `${BASE}/${set.id}`, { body: { commands: [] } })
      expect(cleared.body.commands).to.deep.equal([])
    })

    it('changes nothing when an update fails', async () => {
      const set = await createSet(t, { description: 'keep', commands: COMMANDS })
      const other = await createSet(t)
      // A bad regex deep in the new list: nothing of the request is applied.
      const bad = [...COMMANDS, { command: 'x', action: 'deny', arguments: [{ match_type: 'exact', value: 'a' }, { match_type: 'regex', value: '(a+)+' }] }]
      expectError(await t.admin('PUT', `${BASE}/${set.id}`, { body: { name: uniq('renamed'), description: 'changed', commands: bad } }), 422, 'REGEX_INVALID', 'commands[3].arguments[1].value')
      // A name taken: the new commands are not applied either.
      expectError(await t.admin('PUT', `${BASE}/${set.id}`, { body: { name: other.name.toUpperCase(), commands: [] } }), 409, 'COMMAND_SET_NAME_TAKEN', 'name')
      const now = await t.admin('GET', `${BASE}/${set.id}`)
      expect(now.body).to.deep.equal(set)
    })

    it('refuses to delete a set a profile uses (409 naming the profile), and deletes it once the profile is gone', async () => {
      const set = await createSet(t, { commands: COMMANDS })
      const p1 = await createProfile(t, { command_set_ids: [set.id] })
      const p2 = await createProfile(t, { command_set_ids: [set.id] })
      const r = await t.admin('DELETE', `${BASE}/${set.id}`)
      expectError(r, 409, 'COMMAND_SET_IN_USE', 'command_set_id')
      expect(r.body.detail).to.contain(p1.name).and.contain(p2.name)
      expect((await t.admin('GET', `${BASE}/${set.id}`)).status).to.equal(200)
      expect((await t.admin('DELETE', `/api/v1/tacacs/profiles/${p1.id}`)).status).to.equal(204)
      // Taken out of the other profile instead of deleting it.
      expect((await t.admin('PUT', `/api/v1/tacacs/profiles/${p2.id}`, { body: { command_set_ids: [] } })).status).to.equal(200)
      expect((await t.admin('DELETE', `${BASE}/${set.id}`)).status).to.equal(204)
      expectError(await t.admin('GET', `${BASE}/${set.id}`), 404, 'NOT_FOUND', 'command_set_id')
    })

    it('answers 404 naming command_set_id for an unknown id, 422 for a malformed one', async () => {
      await expectIdChecked(t, BASE, 'command_set_id')
    })

    it('writes every change to the audit trail', async () => {
      const set = await createSet(t)
      await t.admin('PUT', `${BASE}/${set.id}`, { body: { description: 'x' } })
      await t.admin('DELETE', `${BASE}/${set.id}`)
      const rows = await t.app.db.knex('audit_log').where({ resource_id: set.id }).orderBy('at').select('action', 'resource_type')
      expect(rows.map((r) => r.action)).to.deep.equal(['tacacs.command_set.create', 'tacacs.command_set.update', 'tacacs.command_set.delete'])
      expect(rows[0].resource_type).to.equal('tacacs_command_set')
    })

    it('gates reads by tacacs.read and changes by tacacs.write', async () => {
      const reader = await t.token({ permissions: ['tacacs.read'] })
      const none = await t.token({ permissions: [] })
      expect((await t.req('GET', BASE, { token: none })).status).to.equal(403)
      expect((await t.req('GET', BASE, { token: reader })).status).to.equal(200)
      expect((await t.req('POST', `${BASE}/references/counts`, { token: reader, body: { command_set_ids: [randomUUID()] } })).status).to.equal(200)
      expect((await t.req('POST', BASE, { token: reader, body: { name: uniq('x') } })).status).to.equal(403)
    })
  })

  describe('validation and conflicts', () => {
    const cmd = (over: Record<string, unknown>) => ({ name: 'x', commands: [{ command: 'show', action: 'permit', ...over }] })
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['an unknown field', { name: 'x', owner: 'me' }, 'UNKNOWN_FIELD', 'owner'],
      ['no name', {}, 'FIELD_REQUIRED', 'name'],
      ['an empty name', { name: '' }, 'VALIDATION_FAILED', 'name'],
      ['a name of 65 characters', { name: 'n'.repeat(65) }, 'VALIDATION_FAILED', 'name'],
      ['a name with a space', { name: 'a b' }, 'VALIDATION_FAILED', 'name'],
      ['a name starting with a dot', { name: '.a' }, 'VALIDATION_FAILED', 'name'],
      ['a description of 501 characters', { name: 'x', description: 'd'.repeat(501) }, 'VALIDATION_FAILED', 'description'],
      ['501 commands', { name: 'x', commands: Array.from({ length: 501 }, () => ({ command: 'show', action: 'permit' })) }, 'VALIDATION_FAILED', 'commands'],
      ['a command without action', { name: 'x', commands: [{ command: 'show' }] }, 'FIELD_REQUIRED', 'commands[0].action'],
      ['an unknown action', cmd({ action: 'allow' }), 'VALIDATION_FAILED', 'commands[0].action'],
      ['an empty command', cmd({ command: '' }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['a command of 129 characters', cmd({ command: 'c'.repeat(129) }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['a command with two spaces', cmd({ command: 'show  run' }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['a command with a leading space', cmd({ command: ' show' }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['a command with a quote', cmd({ command: 'echo "x"' }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['a command with a slash', cmd({ command: 'a/b' }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['a command with a backslash', cmd({ command: 'a\\b' }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['a command with a tab', cmd({ command: 'show\trun' }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['a command that is not ASCII', cmd({ command: 'показать' }), 'VALIDATION_FAILED', 'commands[0].command'],
      ['21 argument rules', cmd({ arguments: Array.from({ length: 21 }, () => ({ match_type: 'exact', value: 'a' })) }), 'VALIDATION_FAILED', 'commands[0].arguments'],
      ['an unknown match type', cmd({ arguments: [{ match_type: 'glob', value: 'a' }] }), 'VALIDATION_FAILED', 'commands[0].arguments[0].match_type'],
      ['an empty value', cmd({ arguments: [{ match_type: 'exact', value: '' }] }), 'VALIDATION_FAILED', 'commands[0].arguments[0].value'],
      ['a value of 201 characters', cmd({ arguments: [{ match_type: 'exact', value: 'v'.repeat(201) }] }), 'VALIDATION_FAILED', 'commands[0].arguments[0].value'],
      ['a value with a line break', cmd({ arguments: [{ match_type: 'exact', value: 'a\nb' }] }), 'VALIDATION_FAILED', 'commands[0].arguments[0].value'],
      ['an unknown field in a rule', cmd({ arguments: [{ match_type: 'exact', value: 'a', negate: true }] }), 'UNKNOWN_FIELD', 'commands[0].arguments[0].negate'],
    ]
    for (const [what, body, code, field] of cases) {
      it(`refuses ${what} (422 ${code} at ${field})`, async () => {
        expectError(await t.admin('POST', BASE, { body }), 422, code, field)
      })
    }

    const regexCases: [string, string][] = [
      ['a slash', 'a/b'],
      ['lookbehind', '(?<=a)b'],
      ['a named group', '(?<n>a)'],
      ['a backreference', '(a)\\1'],
      ['a named backreference', '\\k<n>'],
      ['a Unicode property', '\\p{L}'],
      ['(a+)+', '(a+)+'],
      ['(a*)*', '(a*)*'],
      ['(a|a)*', '(a|a)*'],
      ['an anchor', '^abc'],
      ['a syntax error', '(abc'],
    ]
    for (const [what, value] of regexCases) {
      it(`refuses a regex rule with ${what} (422 REGEX_INVALID at the rule's value)`, async () => {
        const body = { name: uniq('re'), commands: [{ command: 'show', action: 'permit' }, { command: 'x', action: 'deny', arguments: [{ match_type: 'exact', value: 'a/b' }, { match_type: 'regex', value }] }] }
        const r = await t.admin('POST', BASE, { body })
        expectError(r, 422, 'REGEX_INVALID', 'commands[1].arguments[1].value')
      })
    }

    it('takes the same characters literally in exact and prefix rules', async () => {
      const r = await t.admin('POST', BASE, { body: { name: uniq('lit'), commands: [{ command: 'x', action: 'deny', arguments: [{ match_type: 'exact', value: '(a+)+/\\1' }, { match_type: 'prefix', value: '^[' }] }] } })
      expect(r.status).to.equal(201)
    })

    it('explains a refused regex in the caller language', async () => {
      const body = { name: uniq('re'), commands: [{ command: 'x', action: 'deny', arguments: [{ match_type: 'regex', value: '(a+)+' }] }] }
      const en = await t.admin('POST', BASE, { body })
      const ru = await t.admin('POST', BASE, { body, headers: { 'accept-language': 'ru' } })
      expect(en.body.detail).to.match(/catastrophic backtracking/)
      expect(ru.body.detail).to.match(/катастрофическим перебором/)
    })

    it('refuses a name taken, case-insensitively (409 COMMAND_SET_NAME_TAKEN)', async () => {
      const set = await createSet(t)
      expectError(await t.admin('POST', BASE, { body: { name: set.name.toUpperCase() } }), 409, 'COMMAND_SET_NAME_TAKEN', 'name')
      const other = await createSet(t)
      expectError(await t.admin('PUT', `${BASE}/${other.id}`, { body: { name: set.name } }), 409, 'COMMAND_SET_NAME_TAKEN', 'name')
      // Renaming to its own name (another case) is no conflict.
      expect((await t.admin('PUT', `${BASE}/${set.id}`, { body: { name: set.name.toUpperCase() } })).status).to.equal(200)
    })

    it('accepts 500 commands of 20 rules each', async () => {
      const commands = Array.from({ length: 500 }, (_, i) => ({
        command: `cmd${i}`,
        action: i % 2 ? 'permit' : 'deny',
        arguments: Array.from({ length: 20 }, (_, j) => ({ match_type: (['exact', 'prefix', 'regex'] as const)[j % 3], value: `v${j}[0-9]+` })),
      }))
      const r = await t.admin('POST', BASE, { body: { name: uniq('big'), commands } })
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).to.equal(201)
      expect(r.body.commands).to.have.length(500)
      expect(r.body.commands[499].arguments[19]).to.deep.equal({ match_type: 'prefix', value: 'v19[0-9]+' })
    })
  })

  describe('the list', () => {
    let tag: string
    before(async () => {
      tag = uniq('lst')
      // Created in an order that differs from the name order.
      for (const [n, d, c] of [['c', 'gamma', 1], ['a', 'alpha', 3], ['b', 'Needle in description', 0]] as const) {
        await createSet(t, { name: `${tag}-${n}`, description: d, commands: Array.from({ length: c }, () => ({ command: 'show', action: 'permit' })) })
      }
    })

    it('answers list items with command_count, not commands', async () => {
      const r = await t.admin('GET', `${BASE}?search=${tag}`)
      expect(r.status).to.equal(200)
      expect(Object.keys(r.body).sort()).to.deep.equal(['items', 'page', 'pages', 'per_page', 'total', 'total_by_filter'])
      expect(r.body.items.map((i: any) => i.name)).to.deep.equal([`${tag}-a`, `${tag}-b`, `${tag}-c`])
      for (const i of r.body.items) expect(Object.keys(i).sort()).to.deep.equal([...LIST_FIELDS].sort())
      expect(r.body.items.map((i: any) => i.command_count)).to.deep.equal([3, 0, 1])
      expect(r.body).to.include({ total_by_filter: 3, page: 1, per_page: 20, pages: 1 })
      expect(r.body.total).to.be.at.least(3)
    })

    it('searches name and description, case-insensitively', async () => {
      const byDescription = await t.admin('GET', `${BASE}?search=NEEDLE%20IN`)
      expect(byDescription.body.items.map((i: any) => i.name)).to.include(`${tag}-b`)
      expect(byDescription.body.items.every((i: any) => /needle in/i.test(i.description ?? '') || /needle in/i.test(i.name))).to.equal(true)
      const byName = await t.admin('GET', `${BASE}?search=${tag.toUpperCase()}-A`)
      expect(byName.body.items.map((i: any) => i.name)).to.deep.equal([`${tag}-a`])
      expect((await t.admin('GET', `${BASE}?search=%25${tag}`)).body.total_by_filter).to.equal(0)
    })

    it('sorts by name, created_at and updated_at, either way', async () => {
      const names = async (q: string) => (await t.admin('GET', `${BASE}?search=${tag}&${q}`)).body.items.map((i: any) => i.name.slice(-1))
      expect(await names('sort_by=name&sort_order=desc')).to.deep.equal(['c', 'b', 'a'])
      expect(await names('sort_by=created_at')).to.deep.equal(['c', 'a', 'b'])
      expect(await names('sort_by=created_at&sort_order=desc')).to.deep.equal(['b', 'a', 'c'])
      const c = (await t.admin('GET', `${BASE}?search=${tag}-c`)).body.items[0]
      await t.admin('PUT', `${BASE}/${c.id}`, { body: { description: 'touched' } })
      expect(await names('sort_by=updated_at&sort_order=desc')).to.deep.equal(['c', 'b', 'a'])
    })

    it('pages', async () => {
      const p2 = await t.admin('GET', `${BASE}?search=${tag}&per_page=2&page=2`)
      expect(p2.body).to.include({ page: 2, per_page: 2, pages: 2, total_by_filter: 3 })
      expect(p2.body.items.map((i: any) => i.name)).to.deep.equal([`${tag}-c`])
      expect((await t.admin('GET', `${BASE}?search=${tag}&per_page=100`)).status).to.equal(200)
    })

    const bad: [string, string][] = [
      ['per_page=101', 'per_page'],
      ['per_page=0', 'per_page'],
      ['page=0', 'page'],
      ['sort_by=command_count', 'sort_by'],
      ['sort_by=description', 'sort_by'],
      ['sort_order=up', 'sort_order'],
      ['bogus=1', 'bogus'],
    ]
    for (const [q, field] of bad) {
      it(`refuses ${q} (422 at ${field})`, async () => {
        const r = await t.admin('GET', `${BASE}?${q}`)
        expect(r.status).to.equal(422)
        expect(r.body.field).to.equal(field)
      })
    }
  })

  describe('references', () => {
    it('reports the profiles using a set as blocking, and nothing auto-clearing', async () => {
      const set = await createSet(t)
      const unused = await createSet(t)
      const b = await createProfile(t, { name: uniq('b-prof'), command_set_ids: [set.id] })
      const a = await createProfile(t, { name: uniq('a-prof'), command_set_ids: [unused.id, set.id] })
      const r = await t.admin('GET', `${BASE}/${set.id}/references`)
      expect(r.status).to.equal(200)
      expect(r.body).to.deep.equal({
        blocking: [
          { type: 'tacacs_profile', id: a.id, name: a.name },
          { type: 'tacacs_profile', id: b.id, name: b.name },
        ],
        auto_clearing: [],
      })
      expect((await t.admin('GET', `${BASE}/${(await createSet(t)).id}/references`)).body).to.deep.equal({ blocking: [], auto_clearing: [] })
    })

    it('counts references of many sets; an unknown id counts 0', async () => {
      const used = await createSet(t)
      const unused = await createSet(t)
      await createProfile(t, { command_set_ids: [used.id] })
      await createProfile(t, { command_set_ids: [used.id] })
      const unknown = randomUUID()
      const r = await t.admin('POST', `${BASE}/references/counts`, { body: { command_set_ids: [used.id, unused.id, unknown] } })
      expect(r.status).to.equal(200)
      expect(r.body).to.deep.equal({
        [used.id]: { blocking: 2, auto_clearing: 0 },
        [unused.id]: { blocking: 0, auto_clearing: 0 },
        [unknown]: { blocking: 0, auto_clearing: 0 },
      })
      // Keys as sent.
      const upper = used.id.toUpperCase()
      expect((await t.admin('POST', `${BASE}/references/counts`, { body: { command_set_ids: [upper] } })).body).to.deep.equal({ [upper]: { blocking: 2, auto_clearing: 0 } })
    })

    const bad: [string, unknown, string][] = [
      ['an empty list', { command_set_ids: [] }, 'command_set_ids'],
      ['501 ids', { command_set_ids: Array.from({ length: 501 }, () => randomUUID()) }, 'command_set_ids'],
      ['a duplicate id', { command_set_ids: ['6f1c2b1e-0000-4000-8000-000000000000', '6f1c2b1e-0000-4000-8000-000000000000'] }, 'command_set_ids'],
      ['an id that is not a UUID', { command_set_ids: ['x'] }, 'command_set_ids[0]'],
      ['no ids', {}, 'command_set_ids'],
    ]
    for (const [what, body, field] of bad) {
      it(`refuses counts for ${what} (422 at ${field})`, async () => {
        const r = await t.admin('POST', `${BASE}/references/counts`, { body })
        expect(r.status).to.equal(422)
        expect(r.body.field).to.equal(field)
      })
    }

    it('accepts 500 ids', async () => {
      const r = await t.admin('POST', `${BASE}/references/counts`, { body: { command_set_ids: Array.from({ length: 500 }, () => randomUUID()) } })
      expect(r.status).to.equal(200)
      expect(Object.keys(r.body)).to.have.length(500)
    })
  })
})
