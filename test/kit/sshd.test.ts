/**
 * The sshd kit itself (test/kit/sshd.ts, test/kit/fake-cli.mjs): two real OpenSSH servers on
 * 127.0.0.11 and 127.0.0.12, driven by an ssh2 client as the collector drives them: the host key the
 * client sees is the one the kit names, only the kit's key logs in, an interactive shell pages with
 * ` --More-- ` until `terminal length 0`, `show running-config` re-reads the file, and exec mode runs
 * one command. Pinned to the embedded run: the e2e that uses the kit runs there (suite time).
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2'
import { runsOn } from './app.js'
import { skipBecause } from './skip.js'
import { SSHD_SKIP, sshdBinary, startSwitches, type SshdSwitches } from './sshd.js'

const CONFIG = (n: number, extra = '') =>
  ['hostname switch' + n, ...Array.from({ length: 45 }, (_, i) => `interface GigabitEthernet0/${i + 1}\n description port ${i + 1}`), extra, 'end', ''].join('\n')

function connect(o: ConnectConfig, seen: { key?: string } = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const c = new Client()
    c.once('ready', () => resolve(c))
    c.once('error', reject)
    c.connect({
      ...o,
      readyTimeout: 15_000,
      hostVerifier: (key: Buffer) => {
        seen.key = 'SHA256:' + createHash('sha256').update(key).digest('base64').replace(/=+$/, '')
        return true
      },
    })
  })
}

/** Drive a shell like a collector: send, read until the prompt, answer the pager with a space. */
function shellSession(ch: ClientChannel) {
  let buf = ''
  let pages = 0
  ch.on('data', (d: Buffer) => {
    buf += d.toString('utf8')
    if (buf.endsWith(' --More-- ')) {
      pages++
      ch.write(' ')
    }
  })
  const until = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${re} in ${JSON.stringify(buf.slice(-300))}`)), 15_000)
      const check = () => {
        if (!re.test(buf)) return
        clearTimeout(timer)
        ch.off('data', check)
        const got = buf
        buf = ''
        resolve(got)
      }
      ch.on('data', check)
      check()
    })
  return {
    until,
    pages: () => pages,
    run: async (cmd: string) => {
      ch.write(cmd + '\r')
      return (await until(/\r?\nswitch1#$/)).replace(/\r/g, '')
    },
  }
}

;(runsOn('embedded') ? describe : describe.skip)('test kit: real sshd switches with the fake CLI', function () {
  this.timeout(60_000)
  let s: SshdSwitches

  before(async function () {
    if (!sshdBinary()) skipBecause(this, SSHD_SKIP)
    s = await startSwitches([
      { name: 'switch1', address: '127.0.0.11', config: CONFIG(1) },
      { name: 'switch2', address: '127.0.0.12', config: CONFIG(2) },
    ])
  })
  after(async () => {
    await s?.stop()
  })

  const login = (i: number, seen?: { key?: string }) =>
    connect({ host: s.switches[i].address, port: s.switches[i].port, username: s.username, privateKey: s.privateKey }, seen)

  it('each switch listens on its own loopback address with its own host key, the one the kit names', async () => {
    const seen = [{} as { key?: string }, {} as { key?: string }]
    for (const i of [0, 1]) (await login(i, seen[i])).end()
    expect(seen[0].key).to.equal(s.switches[0].hostKeySha256)
    expect(seen[1].key).to.equal(s.switches[1].hostKeySha256)
    expect(seen[0].key).to.not.equal(seen[1].key)
    expect(s.switches.map((w) => w.address)).to.deep.equal(['127.0.0.11', '127.0.0.12'])
  })

  it('refuses another key and any password', async () => {
    // ssh2 reads ed25519 keys in OpenSSH's format only: a second key from ssh-keygen.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-key-'))
    spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'k')])
    const other = readFileSync(path.join(dir, 'k'), 'utf8')
    rmSync(dir, { recursive: true })
    const sw = s.switches[0]
    const base = { host: sw.address, port: sw.port, username: s.username }
    for (const how of [{ privateKey: other }, { password: 'secret' }]) {
      const refused = await connect({ ...base, ...how }).then(
        (c) => (c.end(), null),
        (e: Error) => e,
      )
      expect(refused?.message, JSON.stringify(Object.keys(how))).to.match(/authentication methods failed/)
    }
  })

  it('a shell pages with --More-- until `terminal length 0`, and `show running-config` re-reads the file', async () => {
    const c = await login(0)
    try {
      const ch = await new Promise<ClientChannel>((resolve, reject) => c.shell({ term: 'vt100', cols: 511, rows: 24 }, (e, st) => (e ? reject(e) : resolve(st))))
      const sh = shellSession(ch)
      await sh.until(/switch1#$/)
      const paged = await sh.run('show running-config')
      expect(sh.pages()).to.be.greaterThan(2)
      expect(paged).to.include('Current configuration :').and.include(' description port 45').and.include('\nend\n')

      expect(await sh.run('terminal length 0')).to.equal('terminal length 0\nswitch1#')
      // Already privileged: enable is a no-op, as the cisco_ios profile expects.
      expect(await sh.run('enable')).to.equal('enable\nswitch1#')
      const before = sh.pages()
      s.switches[0].setConfig(CONFIG(1, 'ip http server'))
      const unpaged = await sh.run('show running-config')
      expect(sh.pages()).to.equal(before)
      expect(unpaged).to.not.include('--More--')
      expect(unpaged.split('\n')).to.include('ip http server')
      expect(await sh.run('show version')).to.include("% Invalid input detected at '^' marker.")
      ch.write('exit\r')
      await new Promise((r) => ch.once('close', r))
    } finally {
      c.end()
    }
  })

  it('exec mode runs the one command without paging', async () => {
    const c = await login(1)
    try {
      const out = await new Promise<string>((resolve, reject) =>
        c.exec('show running-config', (e, ch) => {
          if (e) return reject(e)
          let o = ''
          ch.on('data', (d: Buffer) => (o += d))
          ch.on('close', () => resolve(o))
        }),
      )
      expect(out).to.not.include('--More--')
      expect(out.split('\n')).to.include('hostname switch2').and.include('end')
    } finally {
      c.end()
    }
  })
})
