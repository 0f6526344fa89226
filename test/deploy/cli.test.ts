/**
 * The `portcullis` command line: render / check / deploy on a real database,
 * the RADIUS probe's MS-CHAPv2 arithmetic (RFC 2759 vectors) and its round
 * trip with a RADIUS server, and, with TAC_PLUS_NG, tacacs-probe against
 * tac_plus-ng running the deployed release.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { createHash, createHmac } from 'node:crypto'
import dgram from 'node:dgram'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { authenticatorResponse, challengeHash, decodeAttributes, encryptPap, ntResponse } from '../../kernel/cli/radius-client.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { freePort, startTacPlusNg, tacPlusNgBinary, TAC_PLUS_NG_SKIP } from '../kit/tac-plus-ng.js'
import { created, PLUGINS as AAA_PLUGINS, RULES, setSetting, strongPassword } from '../../plugins/tacacs/test/e2e/support.js'
import { current } from './helpers.js'

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['--import', 'tsx', 'kernel/cli.ts', ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => (stdout += d))
    c.stderr.on('data', (d) => (stderr += d))
    c.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('portcullis CLI', function () {
  this.timeout(120_000)

  describe('radius-probe arithmetic', () => {
    it('computes MS-CHAPv2 as RFC 2759 §9.2 does', () => {
      const auth = Buffer.from('5B5D7C7D7B3F2F3E3C2C602132262628', 'hex')
      const peer = Buffer.from('21402324255E262A28295F2B3A337C7E', 'hex')
      expect(challengeHash(peer, auth, 'User').toString('hex').toUpperCase()).to.equal('D02E4386BCE91226')
      const nt = ntResponse(auth, peer, 'User', 'clientPass')
      expect(nt.toString('hex').toUpperCase()).to.equal('82309ECD8D708B5EA08FAA3981CD83544233114A3D85D6DF')
      expect(authenticatorResponse('clientPass', nt, peer, auth, 'User')).to.equal('S=407A5589115FD0D6209F510FE9C04566932CDA56')
    })

    it('decodes reply attributes by name, vendor ones and tagged ones included', () => {
      const a = (t: number, v: Buffer) => Buffer.concat([Buffer.from([t, v.length + 2]), v])
      const vsa = (vendor: number, t: number, v: Buffer) => a(26, Buffer.concat([Buffer.from([0, 0, vendor >> 8, vendor & 0xff]), a(t, v)]))
      const buf = Buffer.concat([
        a(18, Buffer.from('Welcome')),
        a(27, Buffer.from([0, 0, 0x0e, 0x10])),
        a(64, Buffer.from([0, 0, 0, 13])),
        a(81, Buffer.from('\x00100')),
        vsa(9, 1, Buffer.from('shell:priv-lvl=15')),
      ])
      expect(decodeAttributes(buf)).to.deep.equal([
        { name: 'Reply-Message', value: 'Welcome' },
        { name: 'Session-Timeout', value: '3600' },
        { name: 'Tunnel-Type', value: '13' },
        { name: 'Tunnel-Private-Group-Id', value: '100' },
        { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
      ])
    })
  })

  describe('radius-probe round trip', () => {
    const SECRET = 'probe-secret'
    let server: dgram.Socket
    let port: number
    before(async () => {
      server = dgram.createSocket('udp4')
      // A tiny RADIUS server: accepts alice/wonderland by PAP or MS-CHAPv2, rejects anything else.
      server.on('message', (m, rinfo) => {
        const id = m[1]
        const reqAuth = m.subarray(4, 20)
        const attrs = new Map<number, Buffer>()
        const vsas = new Map<number, Buffer>()
        for (let i = 20; i < m.length; i += m[i + 1]) {
          const v = m.subarray(i + 2, i + m[i + 1])
          if (m[i] === 26) vsas.set(v[4], v.subarray(6))
          else attrs.set(m[i], v)
        }
        // Message-Authenticator must be right.
        const ma = Buffer.from(m)
        const at = ma.indexOf(Buffer.concat([Buffer.from([80, 18]), attrs.get(80)!]))
        ma.fill(0, at + 2, at + 18)
        const maOk = createHmac('md5', SECRET).update(ma).digest().equals(attrs.get(80)!)
        const user = attrs.get(1)!.toString()
        let ok = false
        let success: Buffer | null = null
        if (attrs.has(2)) {
          const enc = attrs.get(2)!
          const b = createHash('md5').update(Buffer.concat([Buffer.from(SECRET), reqAuth])).digest()
          const plain = Buffer.from(enc.subarray(0, 16).map((x, j) => x ^ b[j]))
          ok = plain.toString().replace(/\0+$/, '') === 'wonderland'
        } else if (vsas.has(25)) {
          const r = vsas.get(25)!
          const peer = r.subarray(2, 18)
          const nt = r.subarray(26, 50)
          ok = ntResponse(vsas.get(11)!, peer, user, 'wonderland').equals(nt)
          if (ok) success = Buffer.concat([Buffer.from([r[0]]), Buffer.from(authenticatorResponse('wonderland', nt, peer, vsas.get(11)!, user))])
        }
        ok &&= maOk && user === 'alice'
        const body = ok
          ? Buffer.concat([
              Buffer.from([18, 9]), Buffer.from('Welcome'),
              ...(success ? [Buffer.from([26, success.length + 8, 0, 0, 1, 55, 26, success.length + 2]), success] : []),
            ])
          : Buffer.concat([Buffer.from([18, 8]), Buffer.from('Denied')])
        const head = Buffer.from([ok ? 2 : 3, id, 0, 0])
        head.writeUInt16BE(20 + body.length, 2)
        const auth = createHash('md5').update(Buffer.concat([head, reqAuth, body, Buffer.from(SECRET)])).digest()
        server.send(Buffer.concat([head, auth, body]), rinfo.port, rinfo.address)
      })
      await new Promise<void>((r) => server.bind(0, '127.0.0.1', r))
      port = server.address().port
    })
    after(() => server.close())

    for (const method of ['pap', 'mschapv2']) {
      it(`${method}: PASS with the reply attributes, FAIL on a wrong password or secret`, async () => {
        const base = ['radius-probe', '--host', '127.0.0.1', '--port', String(port), '--user', 'alice', '--method', method]
        const ok = await cli([...base, '--secret', SECRET, '--password', 'wonderland'])
        expect(ok.code, ok.stdout + ok.stderr).to.equal(0)
        expect(ok.stdout, ok.stdout).to.match(/Access-Accept in \d+ ms  \(response authenticator OK\)/)
        expect(ok.stdout).to.include('Reply-Message = "Welcome"')
        if (method === 'mschapv2') expect(ok.stdout).to.include('MS-CHAP2-Success verified')
        expect(ok.stdout.trim().split('\n').pop()).to.equal('PASS')
        const bad = await cli([...base, '--secret', SECRET, '--password', 'nope'])
        expect(bad.code).to.equal(1)
        expect(bad.stdout).to.include('Access-Reject').and.include('Reply-Message = "Denied"')
        const wrongSecret = await cli([...base, '--secret', 'other', '--password', 'wonderland'])
        expect(wrongSecret.code).to.equal(1)
        expect(wrongSecret.stdout).to.match(/WRONG: the shared secret differs|Access-Reject/)
      })
    }
  })

  describe('render, check, deploy', () => {
    let t: TestApp
    let dataDir: string
    let env: Record<string, string>
    before(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-cli-'))
      const plugins = ['inventory', 'tacacs', './examples/greetings-plugin', './test/fixtures/plugins/deploy-probe']
      t = await startTestApp({ plugins, dataDir })
      await t.admin('POST', '/api/v1/greetings', { body: { name: 'cli', message: 'Hello' } })
      env = { DATABASE_URL: t.databaseUrl!, DATA_DIR: dataDir, MASTER_KEY: t.masterKey, PLUGINS: plugins.join(','), TAC_PLUS_NG: '' }
      await t.stop()
    })
    after(() => rmSync(dataDir, { recursive: true, force: true }))

    it('render writes every daemon\'s files into a new folder, with their modes', async () => {
      const r = await cli(['render', '--out', path.join(dataDir, 'out')], env)
      expect(r.code, r.stderr).to.equal(0)
      expect(r.stdout).to.match(/tac_plus-ng: rendered into .*out\/tac_plus-ng\n\s+0600\s+\d+ B\s+[0-9a-f]{16}\s+tac_plus-ng\.cfg/)
      expect(readFileSync(path.join(dataDir, 'out', 'motd', 'motd.txt'), 'utf8')).to.equal('Hello, cli!\n')
      const again = await cli(['render', '--out', path.join(dataDir, 'out')], env)
      expect(again.code).to.equal(1)
      expect(again.stderr).to.match(/exists already/)
    })

    it('check runs the daemon\'s check on a folder: PASS, FAIL with the output, SKIPPED without the binary', async () => {
      expect((await cli(['check', path.join(dataDir, 'out', 'brokend'), '--daemon', 'brokend'], env)).stdout).to.match(/brokend .*: PASS/)
      const skipped = await cli(['check', path.join(dataDir, 'out', 'tac_plus-ng'), '--daemon', 'tac_plus-ng'], { ...env, PATH: '/usr/bin:/bin' })
      expect(skipped.stdout).to.match(/SKIPPED\n\s+tac_plus-ng not found: check skipped/)
      const bin = tacPlusNgBinary()
      if (bin) {
        const real = await cli(['check', path.join(dataDir, 'out', 'tac_plus-ng'), '--daemon', 'tac_plus-ng'], { ...env, TAC_PLUS_NG: bin })
        expect(real.code, real.stdout + real.stderr).to.equal(0)
        expect(real.stdout).to.match(/tac_plus-ng .*: PASS/)
      }
      expect((await cli(['check', '--daemon', 'motd'], env)).code).to.equal(2)
    })

    it('deploy activates, deploy --dry-run shows no change, an unknown daemon fails', async () => {
      const d = await cli(['deploy', '--comment', 'from the cli'], env)
      expect(d.code, d.stderr).to.equal(0)
      expect(d.stdout).to.match(/^motd: ACTIVE  release (\S+)/m)
      const release = /^motd: ACTIVE {2}release (\S+)/m.exec(d.stdout)![1]
      expect(current(dataDir, 'motd')).to.equal(release)
      const dry = await cli(['deploy', '--dry-run', '--daemon', 'motd'], env)
      expect(dry.code).to.equal(0)
      expect(dry.stdout).to.equal(`motd: no change from ${release}; check SKIPPED\n`)
      const unknown = await cli(['deploy', '--daemon', 'nope'], env)
      expect(unknown.code).to.equal(1)
      expect(unknown.stderr).to.match(/DEPLOY_DAEMON_UNKNOWN: No renderer produces configuration for daemon "nope"/)
    })
  })

  describe('tacacs-probe against tac_plus-ng running the deployed release', () => {
    it('PASS for a permitted user and command, FAIL for a wrong password or a denied command', async function () {
      const bin = tacPlusNgBinary()
      if (!bin) {
        console.log(`      (skipped: ${TAC_PLUS_NG_SKIP})`)
        return this.skip()
      }
      const t = await startTestApp({ plugins: AAA_PLUGINS })
      let daemon: Awaited<ReturnType<typeof startTacPlusNg>> | undefined
      try {
        const pw = strongPassword()
        const alice = await created(t, '/api/v1/users', { username: 'alice', password: pw, network_login: true })
        const lo = await created(t, '/api/v1/devices', { name: 'lo', address: '127.0.0.1', tacacs_key: 'probe-key' })
        const set = await created(t, '/api/v1/tacacs/command-sets', { name: 'show-only', commands: [{ command: 'show', action: 'permit' }] })
        const prof = await created(t, '/api/v1/tacacs/profiles', { name: 'ro', privilege_level: 7, command_set_ids: [set.id], default_action: 'deny' })
        await created(t, RULES, { name: 'alice-lo', who: { user_id: alice.id }, where: { device_id: lo.id }, tacacs_profile_id: prof.id })
        const port = await freePort()
        await setSetting(t, 'tacacs.listen_port', port)
        const dep = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
        expect(dep.status, dep.text).to.equal(201)
        expect(dep.body.deploys[0].checked).to.equal(true)
        daemon = await startTacPlusNg({ configFile: path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
        const base = ['tacacs-probe', '--host', '127.0.0.1', '--port', String(port), '--key', 'probe-key', '--user', 'alice']
        const ok = await cli([...base, '--password', pw, '--command', 'show running-config', '--account', 'stop'])
        expect(ok.code, ok.stdout + ok.stderr).to.equal(0)
        expect(ok.stdout).to.match(/authentication \(ascii login\): PASS/)
        expect(ok.stdout).to.match(/authorization exec shell:\s+PASS[\s\S]*priv-lvl=7/)
        expect(ok.stdout).to.match(/authorization "show running-config": PASS/)
        expect(ok.stdout).to.match(/accounting stop:\s+SUCCESS/)
        expect(ok.stdout.trim().split('\n').pop()).to.equal('PASS')
        const denied = await cli([...base, '--password', pw, '--command', 'reload'])
        expect(denied.code).to.equal(1)
        expect(denied.stdout).to.match(/authorization "reload": FAIL/)
        const wrong = await cli([...base, '--password', pw + 'x'])
        expect(wrong.code).to.equal(1)
        expect(wrong.stdout).to.match(/authentication \(ascii login\): FAIL/)
      } finally {
        await daemon?.stop()
        await t.stop()
      }
    })
  })
})
