/**
 * The radius plugin's `radius-probe` command: its MS-CHAPv2 arithmetic (the
 * RFC 2759 vectors, from the one implementation in client/mschapv2.ts that the
 * FreeRADIUS end-to-end tests use too), the reply decoding, and a round trip
 * with a small RADIUS server, dispatched by the kernel's command line. The
 * probe talks to a daemon only (no database), so there is no engine to vary.
 */
import { expect } from 'chai'
import { createHash, createHmac } from 'node:crypto'
import dgram from 'node:dgram'
import { decodeAttributes } from '../client/radius.js'
import { authenticatorResponse, challengeHash, ntResponse } from '../client/mschapv2.js'
import { runsOn } from '../../../test/kit/app.js'
import { runCommand } from '../../../test/kit/cli.js'

const cli = (args: string[]) => runCommand(args, { ...process.env, LOG_LEVEL: 'silent', PLUGINS: 'inventory,radius' })

// radius-probe talks to a daemon only (no database): once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('radius-probe (the radius plugin\'s command)', function () {
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

})
