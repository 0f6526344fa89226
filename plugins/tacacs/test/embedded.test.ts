/** The same tables and queries on the embedded engine (PGlite, one connection): every query of a request goes through its transaction. */
import { expect } from 'chai'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createProfile, createSet, expectError } from './helpers.js'

// Pinned to the embedded engine: in the embedded run only, not once more in the PostgreSQL run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('tacacs plugin on the embedded engine', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ engine: 'embedded', plugins: ['inventory', 'tacacs'] })
  })
  after(async () => t?.stop())

  it('creates, lists, references, refuses and deletes', async () => {
    const set = await createSet(t, { commands: [{ command: 'show', action: 'permit', arguments: [{ match_type: 'regex', value: '\\S+' }] }] })
    const p = await createProfile(t, { command_set_ids: [set.id], shell_attributes: [{ name: 'idletime', value: '5' }] })
    expect((await t.admin('GET', `/api/v1/tacacs/command-sets?search=${set.name}`)).body.items[0]).to.include({ command_count: 1 })
    expect((await t.admin('GET', `/api/v1/tacacs/profiles/${p.id}`)).body.command_set_ids).to.deep.equal([set.id])
    expect((await t.admin('GET', `/api/v1/tacacs/command-sets/${set.id}/references`)).body.blocking).to.have.length(1)
    expectError(await t.admin('DELETE', `/api/v1/tacacs/command-sets/${set.id}`), 409, 'COMMAND_SET_IN_USE')
    expect((await t.admin('PUT', `/api/v1/tacacs/command-sets/${set.id}`, { body: { commands: [] } })).body.commands).to.deep.equal([])
    expect((await t.admin('DELETE', `/api/v1/tacacs/profiles/${p.id}`)).status).to.equal(204)
    expect((await t.admin('DELETE', `/api/v1/tacacs/command-sets/${set.id}`)).status).to.equal(204)
  })
})
