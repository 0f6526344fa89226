/**
 * The pure part of the FreeRADIUS renderer: determinism regardless of input
 * order, refusal of what would break out of a string or be expanded, and
 * hostile but accepted values through the real parser (`freeradius -C`,
 * when installed) without adding a single statement.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { buildFreeradiusConfig, FREERADIUS_LIBDIRS, FreeradiusRenderError, type FreeradiusConfigInput } from '../renderers/config.js'
import { checkConfig, FREERADIUS_PRESENT, FREERADIUS_SKIP, writeRelease } from './e2e-support.js'

const CRYPT = '$6$saltsalt$' + 'a'.repeat(86)
const NT = '0123456789ABCDEF0123456789ABCDEF'

function input(): FreeradiusConfigInput {
  return {
    listen: { address: '127.0.0.1', authPort: 18120, acctPort: 18130 },
    logDirectory: '/var/log/portcullis/radius',
    runDirectory: '/run/portcullis/freeradius',
    libdir: FREERADIUS_LIBDIRS,
    deviceGroups: [
      { id: 'g1', name: 'core', parent_id: null },
      { id: 'g2', name: 'dc', parent_id: 'g1' },
    ],
    devices: [
      { device: { id: 'd2', name: 'sw2', address: '10.0.0.2/32', device_group_id: null, enabled: true }, radiusSecret: `'}{#%{User-Password} ;x` },
      { device: { id: 'd1', name: 'sw1', address: '10.0.0.1/32', device_group_id: 'g2', enabled: true }, radiusSecret: 'a}b{c#d' },
      { device: { id: 'd3', name: 'off', address: '10.0.0.3/32', device_group_id: 'g2', enabled: false }, radiusSecret: 'x' },
      { device: { id: 'd4', name: 'v6', address: '2001:db8::/64', device_group_id: 'g1', enabled: true }, radiusSecret: 'six' },
    ],
    users: [
      { id: 'u2', username: 'bob@corp', group_ids: ['ug1'], verifiers: { sha512_crypt: CRYPT, nt_hash: NT } },
      { id: 'u1', username: 'alice', group_ids: ['ug1'], verifiers: { sha512_crypt: CRYPT, nt_hash: NT } },
      { id: 'u3', username: 'DEFAULT', group_ids: [], verifiers: null },
    ],
    refusedUsers: [
      { username: 'zed', reason: 'network_login_off' },
      { username: 'frank', reason: 'disabled' },
    ],
    profiles: [
      {
        id: 'p1',
        name: 'admin',
        attributes: [
          { name: 'Service-Type', value: 'Administrative-User' },
          { name: 'Reply-Message', value: '"} update reply { Reply-Message := "pwned" } #' },
          { name: 'Reply-Message', value: "\\\" ' ` $HOME $ {x} }}}" },
        ],
        allow_mschapv1: false,
      },
    ],
    rules: [
      { id: 'r1', name: 'admins-core', position: 1, enabled: true, is_default: false, who: { type: 'group', group_id: 'ug1', group_name: 'x' }, where: { type: 'device_group', device_group_id: 'g1', device_group_name: 'core' }, tacacs_profile_id: null, radius_profile_id: 'p1' },
      { id: 'r2', name: 'nobody', position: 2, enabled: true, is_default: false, who: { type: 'group', group_id: 'empty', group_name: 'e' }, where: { type: 'any' }, tacacs_profile_id: null, radius_profile_id: 'p1' },
      { id: 'r3', name: 'default', position: 3, enabled: true, is_default: true, who: { type: 'any' }, where: { type: 'any' }, tacacs_profile_id: null, radius_profile_id: null },
    ],
  }
}

const file = (files: ReturnType<typeof buildFreeradiusConfig>, p: string) => files.find((f) => f.path === p)!.content
/** The render of input() changed by `mut`, to be called by expect(…).to.throw. */
const bad2 = (mut: (i: FreeradiusConfigInput) => void) => () => {
  const i = input()
  mut(i)
  return buildFreeradiusConfig(i)
}

describe('radius: FreeRADIUS renderer (pure)', () => {
  it('is byte-identical for the same data in any order', () => {
    const a = buildFreeradiusConfig(input())
    const shuffled = input()
    shuffled.devices.reverse()
    shuffled.users.reverse()
    shuffled.deviceGroups.reverse()
    expect(buildFreeradiusConfig(shuffled)).to.deep.equal(a)
    expect(a.map((f) => f.path)).to.deep.equal([...a.map((f) => f.path)].sort())
  })

  it('writes device groups with their ancestors, skips disabled devices and empty groups', () => {
    const files = buildFreeradiusConfig(input())
    const policy = file(files, 'portcullis/policy')
    // sw1 (in dc, below core) and v6 (in core) share the location class of core; sw2 is in no place of a rule.
    const clients = file(files, 'clients.conf')
    const cls = (n: string) => new RegExp(`client ${n} \\{[\\s\\S]*?portcullis_class = "(L[0-9]+)"`).exec(clients)![1]
    expect(cls('sw1')).to.equal(cls('v6')).and.not.equal(cls('sw2'))
    expect(cls('sw2')).to.equal('L0')
    // alice and bob@corp are known by the principal of ug1; the candidates of that pair, then anyone anywhere.
    const v = file(files, 'portcullis/verifiers')
    const principal = /^u\.alice\t.*Tmp-String-3 \+= "(g[0-9]+)"/m.exec(v)![1]
    expect(v).to.match(new RegExp(`^u\\.bob@corp\\t.*Tmp-String-3 \\+= "${principal}"`, 'm'))
    const rules = file(files, 'portcullis/rules')
    expect(rules).to.include(`\n${principal}:${cls('sw1')}\tTmp-Integer-5 += 1\n`).and.include('\n*:*\tTmp-Integer-5 += 3\n')
    expect(rules).to.include('\nr1\tTmp-String-0 := "admins-core", Tmp-String-1 := "admin"\n').and.include('\nr3\tTmp-String-0 := "default", Tmp-String-6 := "default-none"\n')
    expect(rules).to.not.include('nobody')
    expect(policy).to.include('# rule 2 nobody: skipped (no network user in its user group)')
    expect(file(files, 'clients.conf')).to.not.include('client off')
    expect(file(files, 'clients.conf')).to.include('ipaddr = 2001:db8::/64')
  })

  it('refuses what would break out or be expanded', () => {
    const bad = (mut: (i: FreeradiusConfigInput) => void) => {
      const i = input()
      mut(i)
      return () => buildFreeradiusConfig(i)
    }
    expect(bad((i) => (i.devices[0].radiusSecret = 'a${confdir}'))).to.throw(FreeradiusRenderError)
    expect(bad((i) => (i.devices[0].radiusSecret = 'a\nb'))).to.throw(FreeradiusRenderError)
    expect(bad((i) => (i.devices[0].device.name = 'sw1 { }'))).to.throw(FreeradiusRenderError)
    expect(bad((i) => (i.devices[0].device.address = '10.0.0.1/32\n}'))).to.throw(FreeradiusRenderError)
    expect(bad((i) => (i.users[0].username = 'a" || true || "'))).to.throw(FreeradiusRenderError)
    expect(bad((i) => (i.users[0].verifiers = { sha512_crypt: "x' }", nt_hash: NT }))).to.throw(FreeradiusRenderError)
    expect(bad((i) => (i.rules![0].name = 'r"}'))).to.throw(FreeradiusRenderError)
    expect(bad((i) => (i.profiles[0].attributes[0] = { name: 'Reply-Message', value: '%{control:Crypt-Password}' }))).to.throw(/refus|rules/)
    expect(bad((i) => (i.profiles[0].attributes[0] = { name: 'Reply-Message', value: '${confdir}' }))).to.throw(/refus|rules/)
    expect(bad((i) => (i.logDirectory = '/var/log/${x}'))).to.throw(FreeradiusRenderError)
  })

  it('writes a kept CHAP password as a single-quoted literal after Crypt-Password, and skips one holding a control character', () => {
    const i = input()
    i.users[0].verifiers = { sha512_crypt: CRYPT, nt_hash: NT, cleartext: `it's a \\ "%{User-Name}" \${confdir}` }
    i.users[1].verifiers = { sha512_crypt: CRYPT, nt_hash: NT, cleartext: 'tab\there' }
    const v = file(buildFreeradiusConfig(i), 'portcullis/verifiers')
    expect(v).to.include(`Cleartext-Password := 'it\\'s a \\\\ "%{User-Name}" \${confdir}'`)
    expect(v.indexOf('Cleartext-Password')).to.be.above(v.indexOf('Crypt-Password'))
    expect(v.match(/Cleartext-Password/g)).to.have.length(1)
    expect(v).to.include('password holds a control character: CHAP is rejected').and.not.include('tab\there')
    const site = file(buildFreeradiusConfig(i), 'sites-enabled/default')
    expect(site).to.include('Auth-Type CHAP {\n\t\tchap\n\t\t$INCLUDE ../portcullis/mfa-password\n\t}').and.include('if (&CHAP-Password && !&control:Cleartext-Password) {')
    expect(buildFreeradiusConfig(i).map((f) => f.path)).to.include('mods-enabled/chap')
  })

  it('keeps its log and pid file in its own folders, and names no Debian-only path', () => {
    const conf = file(buildFreeradiusConfig(input()), 'radiusd.conf')
    expect(conf).to.include('logdir = "/var/log/portcullis/radius"').and.include('run_dir = "/run/portcullis/freeradius"')
    expect(conf).to.include('pidfile = ${run_dir}/freeradius.pid').and.include('file = "/var/log/portcullis/radius/radius.log"')
    expect(conf).to.include('\tlocalstatedir = "/var/log/portcullis/radius"\n\tlogdir = "/var/log/portcullis/radius"\n')
    expect(conf).to.include(`libdir = "${FREERADIUS_LIBDIRS}"`)
    const settings = conf.split('\n').filter((l) => !l.startsWith('#')).join('\n')
    expect(settings).to.not.match(/\/var\/(log|run)\/freeradius|^\s*prefix\s*=/m)
    const i = input()
    i.libdir = '/opt/freeradius/lib/'
    expect(file(buildFreeradiusConfig(i), 'radiusd.conf')).to.include('libdir = "/opt/freeradius/lib"').and.not.include('/usr/lib/freeradius')
    const bad = (mut: (i: FreeradiusConfigInput) => void) => () => {
      const j = input()
      mut(j)
      buildFreeradiusConfig(j)
    }
    expect(bad((j) => (j.runDirectory = 'run/freeradius'))).to.throw(FreeradiusRenderError, /run directory/)
    expect(bad((j) => (j.runDirectory = '/run/"x"'))).to.throw(FreeradiusRenderError)
    expect(bad((j) => (j.libdir = '/usr/lib:lib'))).to.throw(FreeradiusRenderError, /libdir/)
    expect(bad((j) => (j.libdir = '/usr/lib/${x}'))).to.throw(FreeradiusRenderError, /libdir/)
  })

  it('rejects users who are not network users before the policy, each with why; network users are not among them', () => {
    const i = input()
    i.refusedUsers.push({ username: 'alice', reason: 'disabled' })
    const files = buildFreeradiusConfig(i)
    // Who is refused and why, in the users file (0600); the reasons as the site says them, in portcullis/refused.
    const v = file(files, 'portcullis/verifiers')
    expect(v).to.include('\nu.frank\tTmp-String-4 := "disabled"\n').and.include('\nu.zed\tTmp-String-4 := "network_login_off"\n')
    expect(v).to.not.match(/^u\.alice\tTmp-String-4/m)
    expect(v).to.include('\nu.DEFAULT\tTmp-String-4 := "no_network_password"\n').and.not.match(/^DEFAULT/m)
    expect(files.find((f) => f.path === 'portcullis/verifiers')!.mode).to.equal(0o600)
    const refused = file(files, 'portcullis/refused')
    expect(refused).to.include('if (&control:Tmp-String-4 && &control:Tmp-String-4 == "disabled") {\n\tupdate request {\n\t\t&Module-Failure-Message := "the user is disabled"')
    expect(refused).to.include('elsif (&control:Tmp-String-4 && &control:Tmp-String-4 == "network_login_off") {\n\tupdate request {\n\t\t&Module-Failure-Message := "network login is off for this user"')
    expect(refused).to.include('else {\n\tupdate request {\n\t\t&Module-Failure-Message := "unknown user"').and.match(/\}\nreject\n$/)
    const site = file(files, 'sites-enabled/default')
    expect(site.indexOf('$INCLUDE ../portcullis/refused')).to.be.above(site.indexOf('$INCLUDE ../portcullis/login')).and.below(site.indexOf('$INCLUDE ../portcullis/policy'))
    expect(bad2((j) => j.refusedUsers.push({ username: 'x" {', reason: 'disabled' }))).to.throw(FreeradiusRenderError)
  })

  it('accepts MS-CHAPv1 only for the profiles that allow it, of rules that can match', () => {
    const i = input()
    i.profiles.push({ id: 'p2', name: 'legacy', attributes: [], allow_mschapv1: true }, { id: 'p3', name: 'unused', attributes: [], allow_mschapv1: true })
    i.rules!.splice(1, 0, { ...i.rules![0], id: 'r4', name: 'legacy-nas', radius_profile_id: 'p2' })
    const v1 = file(buildFreeradiusConfig(i), 'portcullis/mschapv1')
    expect(v1).to.include('case "legacy" {\n\t\tnoop').and.not.include('"unused"').and.not.include('"admin"')
    expect(file(buildFreeradiusConfig(input()), 'portcullis/mschapv1')).to.match(/switch &control:Tmp-String-1 \{\n\tcase \{\n\t\tupdate request \{\n\t\t\t&Module-Failure-Message := "MS-CHAPv1 is refused/)
  })

  it('refuses to write a stored profile the API would refuse now, naming it (FreeRADIUS would cut or drop its attributes)', () => {
    const over = bad2((j) => (j.profiles[0].attributes = Array.from({ length: 15 }, () => ({ name: 'Reply-Message', value: 'm'.repeat(253) }))))
    expect(over).to.throw(FreeradiusRenderError, /RADIUS profile admin: its attributes take 3825 bytes, 73 over the 3752/)
    const cut = bad2((j) => (j.profiles[0].attributes = [{ name: 'Cisco-AVPair', value: 'shell:x=' + 'a'.repeat(245) }]))
    expect(cut).to.throw(FreeradiusRenderError, /RADIUS profile admin: the value of attributes\[0\] \(Cisco-AVPair\) is 6 bytes too long/)
  })

  it('rejects everyone when no policy is registered', () => {
    const i = input()
    i.rules = null
    expect(file(buildFreeradiusConfig(i), 'portcullis/policy')).to.include('"no AAA policy is loaded"').and.match(/\nreject\n/)
  })
  it('keeps the per-request work to the pairs that can match: 600 users and 400 clients make one candidate entry, no long line; freeradius -C accepts it', function () {
    const i = input()
    // 600 users in ug1 and 400 clients below g1: the old if/elsif chain named each of them (about 35 KiB of tests).
    for (let k = 0; k < 600; k++) i.users.push({ id: `bu${k}`, username: `bulk-user-${String(k).padStart(4, '0')}`, group_ids: ['ug1'], verifiers: { sha512_crypt: CRYPT, nt_hash: NT } })
    for (let k = 0; k < 400; k++) i.devices.push({ device: { id: `bd${k}`, name: `bulk-sw-${String(k).padStart(4, '0')}`, address: `10.1.${k >> 8}.${k & 255}/32`, device_group_id: 'g2', enabled: true }, radiusSecret: 's' })
    const files = buildFreeradiusConfig(i)
    const policy = file(files, 'portcullis/policy')
    for (const f of files) for (const line of f.content.split('\n')) expect(line.length, `${f.path}: a line of ${line.length} characters`).to.be.below(8000)
    expect(policy).to.not.include('bulk-').and.not.include('User-Name')
    // Every bulk client in the one class of core, every bulk user with the one principal of ug1.
    const classes = new Set([...file(files, 'clients.conf').matchAll(/portcullis_class = "(L[0-9]+)"/g)].map((m) => m[1]))
    expect([...classes].sort()).to.deep.equal(['L0', 'L1'])
    expect(file(files, 'portcullis/verifiers').match(/Tmp-String-3 \+= "g[0-9]+"/g)).to.have.length(602)
    const entries = file(files, 'portcullis/rules').split('\n').filter((l) => /^[^#r]/.test(l))
    expect(entries).to.have.length(2)
    if (!FREERADIUS_PRESENT) return
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-freeradius-render-'))
    try {
      writeRelease(dir, files)
      const check = checkConfig(dir)
      expect(check.ok, check.output).to.equal(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
  it('a tree with devices but no network user yet passes freeradius -C (no empty switch)', function () {
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    const i = input()
    i.users = []
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-freeradius-render-'))
    try {
      writeRelease(dir, buildFreeradiusConfig(i))
      const check = checkConfig(dir)
      expect(check.ok, check.output).to.equal(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
  it('hostile but accepted values pass freeradius -C as plain strings', function () {
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-freeradius-render-'))
    try {
      const files = buildFreeradiusConfig(input())
      writeRelease(dir, files)
      const check = checkConfig(dir)
      expect(check.ok, check.output).to.equal(true)
      // The hostile value stays one assignment: exactly the profile's three items in the case.
      const replies = file(files, 'portcullis/replies')
      expect(replies.match(/^\t[A-Za-z-]+ \+= /gm)).to.have.length(3)
      expect(replies).to.include('\tReply-Message += "\\"} update reply { Reply-Message := \\"pwned\\" } #"')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
