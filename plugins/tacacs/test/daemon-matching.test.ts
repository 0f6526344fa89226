/**
 * The matching table of command-match.test.ts run through the real
 * tac_plus-ng: one profile per entry (permit on match, deny otherwise),
 * rendered by the plugin, every line sent as a NAS sends it, with `<cr>` and
 * without, and compared with the table and with the simulation
 * (TacacsService.authorizeCommand through POST /aaa/policy/test is covered by
 * the differential test; here the pure decision is enough). Needs TAC_PLUS_NG.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../client/index.js'
import { decideCommand } from '../services/command-match.js'
import { CASES } from './match-cases.js'
import { created, renderAndRun, RULES, startAaaApp, type DaemonRun } from './e2e/support.js'

describe('tacacs command matching in tac_plus-ng', function () {
  let t: TestApp
  let run: DaemonRun
  const KEY = 'match-key'
  /** The device each entry is tried on: one /32 per entry, each with its own rule and profile. */
  const addr = (i: number) => `127.30.${Math.floor(i / 200)}.${(i % 200) + 2}`
  const entries = [...new Map(CASES.map(([e]) => [JSON.stringify(e), e])).values()]
  const indexOf = new Map(entries.map((e, i) => [JSON.stringify(e), i]))

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()
    const user = await created(t, '/api/v1/users', { username: 'matcher', network_login: true })
    for (const [i, entry] of entries.entries()) {
      const set = await created(t, '/api/v1/tacacs/command-sets', { name: `set${i}`, commands: [entry] })
      const profile = await created(t, '/api/v1/tacacs/profiles', { name: `profile${i}`, command_set_ids: [set.id], default_action: 'deny' })
      const device = await created(t, '/api/v1/devices', { name: `dev${i}`, address: addr(i), tacacs_key: KEY })
      await created(t, RULES, { name: `rule${i}`, who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id })
    }
    run = await renderAndRun(t)
  })

  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  it('decides every line of the table as the table and the simulation do, with and without <cr>', async () => {
    const failures: string[] = []
    for (const [entry, line, expected] of CASES) {
      const i = indexOf.get(JSON.stringify(entry))!
      const client = new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key: KEY, localAddress: addr(i), timeoutMs: 5000 })
      const [word, ...args] = line.split(' ')
      const simulated = decideCommand({ privilege_level: 1, default_action: 'deny' }, [{ id: 's', name: 's', commands: [entry] }], line).decision === 'permit'
      const variants = args.at(-1) === '<cr>' ? [args, args.slice(0, -1)] : [args, [...args, '<cr>']]
      for (const a of variants) {
        // The entry's own action is permit (all table entries are), so a match permits.
        const got = (await client.authorize('matcher', { cmd: word, args: a })).permitted
        if (got !== expected || simulated !== expected) failures.push(`${entry.command} ${JSON.stringify(entry.arguments)} on ${JSON.stringify([word, ...a].join(' '))}: daemon ${got}, simulation ${simulated}, table ${expected}`)
      }
    }
    expect(failures).to.deep.equal([])
  })
})
