/**
 * Command entries with `min_privilege_level`: stored and returned only when given, 0–15 or 422 with
 * nothing changed; the decision skips an entry above the request's level (the profile's by default).
 */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { decideCommand, privLevelAtLeast } from '../services/command-match.js'
import { createSet, expectError, uniq } from './helpers.js'

const BASE = '/api/v1/tacacs/command-sets'

describe('tacacs command entries: min_privilege_level', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'tacacs'] })
  })
  after(async () => t?.stop())

  it('keeps the level where given and leaves it out where not', async () => {
    const s = await createSet(t, { commands: [{ command: 'configure', action: 'permit', min_privilege_level: 15 }, { command: 'show', action: 'permit' }, { command: 'ping', action: 'permit', min_privilege_level: 0 }] })
    expect(s.commands).to.deep.equal([
      { command: 'configure', action: 'permit', min_privilege_level: 15, arguments: [] },
      { command: 'show', action: 'permit', arguments: [] },
      { command: 'ping', action: 'permit', min_privilege_level: 0, arguments: [] },
    ])
    expect((await t.admin('GET', `${BASE}/${s.id}`)).body.commands).to.deep.equal(s.commands)
  })

  for (const [what, level] of [['16', 16], ['-1', -1], ['text', '15'], ['a fraction', 1.5]] as const) {
    it(`refuses a level of ${what} (422 VALIDATION_FAILED at commands[1].min_privilege_level), changing nothing`, async () => {
      const commands = [{ command: 'show', action: 'permit' }, { command: 'configure', action: 'permit', min_privilege_level: level }]
      expectError(await t.admin('POST', BASE, { body: { name: uniq('s'), commands } }), 422, 'VALIDATION_FAILED', 'commands[1].min_privilege_level')
      const s = await createSet(t)
      expectError(await t.admin('PUT', `${BASE}/${s.id}`, { body: { commands } }), 422, 'VALIDATION_FAILED', 'commands[1].min_privilege_level')
      expect((await t.admin('GET', `${BASE}/${s.id}`)).body).to.deep.equal(s)
    })
  }

  it('decides with the request level: an entry above it is skipped, the next decides', () => {
    const sets = [{ id: 's', name: 'n', commands: [
      { command: 'debug', action: 'deny' as const, min_privilege_level: 7, arguments: [] },
      { command: 'debug', action: 'permit' as const, arguments: [] },
    ] }]
    const profile = { privilege_level: 1, default_action: 'deny' as const }
    expect(decideCommand(profile, sets, 'debug ip').decision).to.equal('permit')
    expect(decideCommand(profile, sets, 'debug ip', 7).decision).to.equal('deny')
    expect(decideCommand({ ...profile, privilege_level: 15 }, sets, 'debug ip').decision).to.equal('deny')
    expect(privLevelAtLeast(13)).to.equal('^(?:13|14|15)$')
    expect(privLevelAtLeast(0)).to.equal('^(?:0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15)$')
  })
})
