/**
 * What the operator typed is what tac_plus-ng acts on, and what the policy
 * test answers: made through the API, rendered, checked with `-P`, run, and
 * asked over TACACS+ from the device's address, each answer compared with
 * POST /api/v1/aaa/policy/test.
 *
 * - User names from the API's whole alphabet (`A-Z a-z 0-9 . _ @ -`, a
 *   leading `_ . - @` included) log in and are authorized under exactly that
 *   name; user group names from the whole name alphabet (quotes, backslashes,
 *   `${…}`, `#`, commas, other scripts) are matched by the rules that name them.
 * - Shell attribute values arrive as typed though the daemon runs them
 *   through strftime (`100%`, `%p`, `%n`).
 * - A command line with a NUL byte is denied, at the start (where the daemon
 *   would read the exec start) and inside.
 * - `reload ſ` and `reload K` do not escape a rule denying `reload \w+`.
 *
 * Skips without TAC_PLUS_NG.
 */
import { createHash } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, mapLimit, RULES, renderAndRun, seededRandom, startAaaApp, strongPassword, type DaemonRun } from './support.js'

const SEED = Number(process.env.TACACS_NAMES_SEED ?? Math.floor(Math.random() * 2 ** 31))

/** The user name alphabet of the API (kernel/identity/schemas/users.ts): `^[A-Za-z0-9._@-]+$`, 1 to 64. */
const USER_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._@-'
const FIXED_USERS = ['_bob', '.x', '-y', '@z', '_', '.', '-', '@', '..', '@corp.example', '-_.@', '0', USER_ALPHABET.slice(0, 64)]

/** User group names (sdk/schema.ts NAME_PATTERN): any visible text on one line, no control or direction characters. */
const FIXED_GROUPS = [
  'Net Admins',
  'ops "core"',
  'back\\slash\\',
  'x${HOME}y',
  '${PATH}',
  '$ {x} $x',
  'a,b',
  '# hash',
  "it's",
  '{braces} (parens) [x] =;|&!',
  '%p %n 100%',
  'Ünïcode grüppe',
  '日本語のグループ',
  'emoji 😀 ok',
  'permit',
  'group:lookalike',
  ' leading space',
  '\u00a0nbsp first',
]
/** Visible characters of several scripts and the ASCII punctuation the configuration syntax uses. */
const GROUP_CHARS = [...'abcXYZ019 "\\$%{}#,;=()[]!&|\'`~^*+?/:<>.@_-', 'ü', 'ß', 'ſ', '\u212a', 'й', 'ж', '中', '文', 'ש', 'ع', '😀', '€', '\u00a0', '\u3000']

describe(`tacacs e2e: names, attributes and command lines reach tac_plus-ng as written (seed ${SEED})`, function () {
  let t: TestApp
  let run: DaemonRun
  const KEY = 'render-key'
  const DEVICE = '127.23.0.2'
  const r = seededRandom(SEED)
  const users: { name: string; password: string; group: number | null }[] = []
  const groups: string[] = []
  // Some sixty records made through the API before the daemon starts: the embedded engine takes its time.
  this.timeout(180_000)

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()

    // Names: the fixed hard ones, then random ones from the whole alphabet (unique case-insensitively, as the API wants).
    const userNames = new Set(FIXED_USERS)
    while (userNames.size < FIXED_USERS.length + 12) {
      const n = 1 + r.int(64)
      userNames.add(Array.from({ length: n }, () => r.pick([...USER_ALPHABET])).join(''))
    }
    const groupNames = new Set(FIXED_GROUPS)
    while (groupNames.size < FIXED_GROUPS.length + 8) {
      const n = 1 + r.int(20)
      const name = Array.from({ length: n }, () => r.pick(GROUP_CHARS)).join('')
      if (name.trim()) groupNames.add(name)
    }

    const device = await created(t, '/api/v1/devices', { name: 'names-sw', address: DEVICE, tacacs_key: KEY })
    const groupIds: string[] = []
    for (const name of groupNames) {
      const res = await t.admin('POST', '/api/v1/user-groups', { body: { name } })
      // Only a random name equal to one already made, ignoring case, may be refused.
      if (res.status === 409 && !FIXED_GROUPS.includes(name)) continue
      expect(res.status, `${JSON.stringify(name)}: ${JSON.stringify(res.body)}`).to.equal(201)
      expect(res.body.name, 'the API keeps the name as typed').to.equal(name)
      groups.push(name)
      groupIds.push(res.body.id)
    }

    // One profile per group, told apart by a shell attribute: the exec answer says which rule matched.
    for (const [i, id] of groupIds.entries()) {
      const profile = await created(t, '/api/v1/tacacs/profiles', { name: `pg${i}`, privilege_level: 1 + (i % 15), shell_attributes: [{ name: 'grp', value: String(i) }] })
      await created(t, RULES, { name: `group${i}`, who: { group_id: id }, where: { device_id: device.id }, tacacs_profile_id: profile.id })
    }
    const solo = await created(t, '/api/v1/tacacs/profiles', { name: 'solo', privilege_level: 15, shell_attributes: [{ name: 'grp', value: 'none' }] })

    for (const name of userNames) {
      const group = r.bool(0.75) ? r.int(groupIds.length) : null
      const password = strongPassword()
      const res = await t.admin('POST', '/api/v1/users', { body: { username: name, password, network_login: true, ...(group === null ? {} : { group_ids: [groupIds[group]] }) } })
      if (res.status === 409 && !FIXED_USERS.includes(name)) continue // a random name equal to another, ignoring case
      expect(res.status, `${JSON.stringify(name)}: ${JSON.stringify(res.body)}`).to.equal(201)
      expect(res.body.username).to.equal(name)
      users.push({ name, password, group })
      // Users in no group get a rule of their own: `user == "NAME"` must find them too.
      if (group === null) await created(t, RULES, { name: `user${users.length}`, who: { user_id: res.body.id }, where: { device_id: device.id }, tacacs_profile_id: solo.id })
    }
    expect(users.map((u) => u.name)).to.include.members(FIXED_USERS)

    // strftime: every `%` of an attribute value arrives as typed.
    const pct = await created(t, '/api/v1/tacacs/profiles', {
      name: 'percent',
      privilege_level: 3,
      shell_attributes: [
        { name: 'banner', value: '100%' },
        { name: 'autocmd', value: 'show %p %n %% %Y %' },
        { name: 'x-note', value: '%' },
      ],
    })
    // Default deny: a NUL at the start must not read as the exec start. Default permit: a deny of `reload \w+` must hold.
    const noReload = await created(t, '/api/v1/tacacs/command-sets', {
      name: 'no-reload',
      commands: [
        { command: 'reload', action: 'deny', arguments: [{ match_type: 'regex', value: '\\w+' }] },
        { command: 'show', action: 'permit' },
      ],
    })
    const strict = await created(t, '/api/v1/tacacs/profiles', { name: 'strict', privilege_level: 7, command_set_ids: [noReload.id], default_action: 'deny' })
    const loose = await created(t, '/api/v1/tacacs/profiles', { name: 'loose', privilege_level: 7, command_set_ids: [noReload.id], default_action: 'permit' })
    for (const [name, profile] of [
      ['pct-user', pct],
      ['strict-user', strict],
      ['loose-user', loose],
    ] as const) {
      const u = await created(t, '/api/v1/users', { username: name, password: strongPassword(), network_login: true })
      await created(t, RULES, { name: `rule-${name}`, who: { user_id: u.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id, position: 0 })
    }

    run = await renderAndRun(t)
  })

  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  const client = () => new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key: KEY, localAddress: DEVICE, timeoutMs: 8000 })
  const policyTest = async (username: string, command?: string) => {
    const res = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username, nas_ip: DEVICE, ...(command === undefined ? {} : { command }) } })
    expect(res.status, JSON.stringify(res.body)).to.equal(200)
    return res.body
  }
  const attributes = (sim: { attributes: { name: string; value: string }[] }) => sim.attributes.map((a) => `${a.name}=${a.value}`).sort()

  it('writes user and group names as typed, quoted, and -P reads the file cleanly', () => {
    for (const u of users) expect(run.config).to.contain(`user "${u.name}" {`)
    expect(run.config).to.contain('group "Net Admins"\n')
    expect(run.config).to.contain('group "ops \\"core\\""\n')
    expect(run.config).to.contain('group "back\\\\slash\\\\"\n')
    expect(run.config).to.contain('group "x$\\001{HOME}y"\n')
    expect(run.config).to.contain('# Rule "group0": members of user group "Net Admins" on device "names-sw": TACACS+ profile "pg0"\n')
    expect(run.config).not.to.match(/~[0-9a-f]{16}"/)
  })

  it('logs in every user under the very name (PAP and ASCII), as the policy test says', async () => {
    const failures: string[] = []
    await mapLimit(users, 8, async (u) => {
      const [pap, ascii, sim] = await Promise.all([client().authenticatePap(u.name, u.password), client().authenticateAscii(u.name, u.password), policyTest(u.name)])
      if (!pap.pass || !ascii.pass || sim.decision !== 'permit') failures.push(`${JSON.stringify(u.name)}: PAP ${pap.status}, ASCII ${ascii.status}, policy test ${sim.decision} (${sim.reason})`)
    })
    expect(failures).to.deep.equal([])
  })

  it('authorizes every user by the rule of their group, or their own: same verdict and attributes as the policy test', async () => {
    const failures: string[] = []
    await mapLimit(users, 8, async (u) => {
      const [exec, sim] = await Promise.all([client().authorize(u.name, { cmd: '' }), policyTest(u.name)])
      const grp = exec.args.find((a) => a.startsWith('grp='))
      const want = `grp=${u.group ?? 'none'}`
      if (!exec.permitted || grp !== want) failures.push(`${JSON.stringify(u.name)} (group ${u.group === null ? '-' : JSON.stringify(groups[u.group])}): daemon ${exec.status} ${JSON.stringify(exec.args)}, wanted ${want}`)
      if (JSON.stringify([...exec.args].sort()) !== JSON.stringify(attributes(sim))) failures.push(`${JSON.stringify(u.name)}: daemon ${JSON.stringify(exec.args)}, policy test ${JSON.stringify(attributes(sim))}`)
    })
    expect(failures).to.deep.equal([])
  })

  it('does not know a user by the renamed form older releases wrote (`_bob~…`), nor does the policy test', async () => {
    // Older releases wrote `_bob` as `_bob~` and 16 hex digits of its SHA-256: a NAS sending that got in.
    const renamed = `_bob~${createHash('sha256').update('_bob').digest('hex').slice(0, 16)}`
    expect((await client().authorize(renamed, { cmd: '' })).permitted).to.equal(false)
    expect((await policyTest(renamed)).decision).to.equal('deny')
  })

  it('delivers shell attribute values with % as typed (strftime would make %p PM and split at %n)', async () => {
    const exec = await client().authorize('pct-user', { cmd: '' })
    expect(exec.permitted).to.equal(true)
    expect(exec.args).to.deep.equal(['priv-lvl=3', 'banner=100%', 'autocmd=show %p %n %% %Y %', 'x-note=%'])
    expect([...exec.args].sort()).to.deep.equal(attributes(await policyTest('pct-user')))
  })

  it('denies a command line starting with NUL under a default-deny profile, and one holding NUL under default permit, as the policy test does', async () => {
    const cases: [string, string, string[]][] = [
      ['strict-user', '\0reload', ['<cr>']],
      ['strict-user', '\0', []],
      ['strict-user', '\0show', ['version', '<cr>']],
      ['loose-user', '\0reload', ['now', '<cr>']],
      ['loose-user', 'reload\0', ['<cr>']],
      ['loose-user', 'write', ['mem\0ory', '<cr>']],
    ]
    for (const [user, cmd, args] of cases) {
      const got = await client().authorize(user, { cmd, args })
      expect(got.permitted, `${user}: ${JSON.stringify([cmd, ...args].join(' '))}`).to.equal(false)
      const sim = await policyTest(user, [cmd, ...args.filter((a) => a !== '<cr>')].join(' '))
      expect(sim.command_decision?.decision, JSON.stringify(sim)).to.equal('deny')
    }
    // The exec start itself and a plain permitted command still pass.
    expect((await client().authorize('strict-user', { cmd: '' })).args).to.deep.equal(['priv-lvl=7'])
    expect((await client().authorize('strict-user', { cmd: 'show', args: ['version', '<cr>'] })).permitted).to.equal(true)
    expect((await client().authorize('loose-user', { cmd: 'write', args: ['memory', '<cr>'] })).permitted).to.equal(true)
  })

  it('denies `reload ſ` and `reload K` by the rule denying `reload \\w+`, as the policy test does', async () => {
    for (const arg of ['\u017f', '\u212a', 'now', 'ſK_9']) {
      const got = await client().authorize('loose-user', { cmd: 'reload', args: [arg, '<cr>'] })
      const sim = await policyTest('loose-user', `reload ${arg}`)
      expect([got.permitted, sim.command_decision?.decision], `reload ${arg}`).to.deep.equal([false, 'deny'])
    }
    // A line the rule does not cover is left to the default (permit) in both.
    const other = await client().authorize('loose-user', { cmd: 'reload', args: ['!', '<cr>'] })
    expect([other.permitted, (await policyTest('loose-user', 'reload !')).command_decision?.decision]).to.deep.equal([true, 'permit'])
  })
})
