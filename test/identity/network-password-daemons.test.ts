/**
 * Network passwords on the real daemons: users made through the API with passwords of 63, 64, 65,
 * 127 and 128 bytes (ASCII and multi-byte UTF-8) log in with RADIUS PAP on FreeRADIUS and with
 * TACACS+ PAP and ASCII on tac_plus-ng, from the verifiers the platform rendered. Passwords of
 * exactly 64 or 128 bytes never worked before the SHA-512-crypt fix. Skips a daemon not installed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { deployFreeradius, FREERADIUS_PRESENT, FREERADIUS_SKIP, radclient, type RunningFreeradius } from '../../plugins/radius/test/e2e-support.js'
import { TacacsClient } from '../../plugins/tacacs/client/index.js'
import { created, PLUGINS, renderAndRun, RULES, type DaemonRun } from '../../plugins/tacacs/test/e2e/support.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../kit/tac-plus-ng.js'
import { skipBecause } from '../kit/skip.js'

const RADIUS_SECRET = 'lab-radius-secret'
const TACACS_KEY = 'lab-tacacs-key'
const TACACS_FROM = '127.20.7.2'

/** `pattern` repeated, then ASCII, to exactly `bytes` UTF-8 bytes (no `"` or `\`: radclient unescapes twice). */
function ofBytes(bytes: number, pattern: string): string {
  let s = ''
  for (const c of pattern.repeat(bytes)) {
    if (Buffer.byteLength(s + c) > bytes) break
    s += c
  }
  return s + 'q'.repeat(bytes - Buffer.byteLength(s))
}

const PASSWORDS: Record<string, string> = {
  a63: ofBytes(63, 'Key-9'),
  a64: ofBytes(64, 'Key-9'),
  a65: ofBytes(65, 'Key-9'),
  a127: ofBytes(127, 'Key-9'),
  a128: ofBytes(128, 'Key-9'),
  cyr64: ofBytes(64, 'Пароль-'),
  mix128: ofBytes(128, 'Ключ🔐'),
}

describe('network passwords on the real daemons: 64 and 128 bytes log in', function () {
  this.timeout(120_000)
  let t: TestApp
  let dir: string
  let radius: RunningFreeradius | undefined
  let radiusPort: number
  let tacacs: DaemonRun | undefined

  before(async function () {
    if (!FREERADIUS_PRESENT && !tacPlusNgBinary()) skipBecause(this, `${FREERADIUS_SKIP}; ${TAC_PLUS_NG_SKIP}`)
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-netpw-'))
    t = await startTestApp({ plugins: PLUGINS, options: { 'radius.log_directory': path.join(dir, 'radius-logs') } })
    const group = await created(t, '/api/v1/user-groups', { name: 'netops' })
    for (const [username, password] of Object.entries(PASSWORDS)) {
      const u = await created(t, '/api/v1/users', { username, password, network_login: true, group_ids: [group.id] })
      expect(u.network_verifiers_set).to.equal(true)
    }
    const lab = await created(t, '/api/v1/device-groups', { name: 'lab' })
    await created(t, '/api/v1/devices', { name: 'rad', address: '127.0.0.1/32', device_group_id: lab.id, radius_secret: RADIUS_SECRET })
    await created(t, '/api/v1/devices', { name: 'tac', address: TACACS_FROM, device_group_id: lab.id, tacacs_key: TACACS_KEY })
    const rp = await created(t, '/api/v1/radius/profiles', { name: 'admin', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] })
    const tp = await created(t, '/api/v1/tacacs/profiles', { name: 'admin', privilege_level: 15 })
    await created(t, RULES, { name: 'netops-lab', who: { group_id: group.id }, where: { device_group_id: lab.id }, radius_profile_id: rp.id, tacacs_profile_id: tp.id })

    if (FREERADIUS_PRESENT) {
      ;({ daemon: radius, port: radiusPort } = await deployFreeradius(t, path.join(dir, 'radius')))
    }
    if (tacPlusNgBinary()) tacacs = await renderAndRun(t)
  })

  after(async () => {
    await radius?.stop()
    await tacacs?.stop()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const pap = (user: string, password: string) =>
    radclient(radiusPort, 'auth', RADIUS_SECRET, [`User-Name = "${user}"`, `User-Password = "${password}"`, 'Message-Authenticator = 0x00'])

  it('FreeRADIUS: PAP accepts every one of them, and rejects a wrong password', async function () {
    if (!radius) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    const refused: string[] = []
    for (const [user, password] of Object.entries(PASSWORDS)) {
      const r = await pap(user, password)
      expect(r.code, `${user}: ${r.raw.slice(-500)}`).to.be.oneOf(['Access-Accept', 'Access-Reject'])
      if (r.code !== 'Access-Accept') refused.push(`${user} (${Buffer.byteLength(password)} bytes)`)
    }
    expect(refused, 'refused by FreeRADIUS').to.deep.equal([])
    expect((await pap('a64', PASSWORDS.a63 + 'x')).code).to.equal('Access-Reject')
  })

  it('tac_plus-ng: TACACS+ PAP and ASCII login accept every one of them, and refuse a wrong password', async function () {
    if (!tacacs) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    const client = new TacacsClient({ host: '127.0.0.1', port: tacacs.daemon.port, key: TACACS_KEY, localAddress: TACACS_FROM, timeoutMs: 5000 })
    const refused: string[] = []
    for (const [user, password] of Object.entries(PASSWORDS)) {
      const [p, a] = await Promise.all([client.authenticatePap(user, password), client.authenticateAscii(user, password)])
      if (!p.pass) refused.push(`${user} PAP (${Buffer.byteLength(password)} bytes)`)
      if (!a.pass) refused.push(`${user} ASCII (${Buffer.byteLength(password)} bytes)`)
    }
    expect(refused, 'refused by tac_plus-ng').to.deep.equal([])
    expect((await client.authenticatePap('a64', PASSWORDS.a63 + 'x')).pass).to.equal(false)
  })
})
