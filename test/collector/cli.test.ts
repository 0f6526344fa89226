/**
 * `portcullis collector`: its usage and exit codes (2 for wrong arguments, 1 for what fails), the core
 * URL rule (https, or http to loopback only), and the state file (0600 in a 0700 folder, written whole,
 * refused when others can read it). One real process proves kernel/cli.ts hands the command over
 * before reading any server configuration (no DATABASE_URL, no MASTER_KEY).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'chai'
import { runCollectorCli } from '../../collector/cli.js'
import { checkCoreUrl } from '../../collector/core-client.js'
import { newKeys, pem, readState, stateKeys, statePath, writeState } from '../../collector/state.js'
import { runsOn } from '../kit/app.js'
import { commandArgs } from '../kit/cli.js'

async function cli(args: string[], env: Record<string, string> = {}) {
  const out: string[] = []
  let err = ''
  const code = await runCollectorCli(args, { out: (l = '') => void out.push(l), err: (t) => void (err += t), env })
  return { code, out: out.join('\n'), err }
}

// No database here: the same on either engine, so once per `npm test`, in the embedded run (the PostgreSQL run is the suite's critical path).
;(runsOn('embedded') ? describe : describe.skip)('collector: the command line', function () {
  this.timeout(30_000)
  let dir: string
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'collector-cli-'))))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('answers wrong arguments with its usage and status 2', async () => {
    for (const args of [[], ['bogus'], ['enroll'], ['enroll', '--core', 'https://core.example.org'], ['enroll', '--core', 'https://x', '--token', 't', '--colour'], ['run', '--concurrency', '0'], ['run', '--concurrency', 'many'], ['status', 'extra']]) {
      const r = await cli(args, { PORTCULLIS_COLLECTOR_STATE: dir })
      expect(r.code, args.join(' ')).to.equal(2)
      expect(r.err + r.out, args.join(' ')).to.include('usage: portcullis collector')
    }
    expect((await cli(['help'])).code).to.equal(0)
  })

  it('fails with status 1 when nothing is enrolled, saying what to do', async () => {
    for (const cmd of ['run', 'status']) {
      const r = await cli([cmd, '--state', path.join(dir, 'empty')])
      expect(r.code, cmd).to.equal(1)
      expect(r.err).to.match(/no collector is enrolled/)
    }
  })

  it('refuses an http: core unless it is on loopback, and a core URL with a path', async () => {
    expect(() => checkCoreUrl('http://core.example.org')).to.throw(/http: is refused/)
    expect(() => checkCoreUrl('http://10.1.1.1:8080')).to.throw(/http: is refused/)
    expect(() => checkCoreUrl('https://core.example.org/portcullis')).to.throw(/origin only/)
    expect(checkCoreUrl('http://127.0.0.1:8080').origin).to.equal('http://127.0.0.1:8080')
    expect(checkCoreUrl('http://[::1]:8080').hostname).to.equal('[::1]')
    expect(checkCoreUrl('https://core.example.org').origin).to.equal('https://core.example.org')
    const r = await cli(['enroll', '--core', 'http://core.example.org', '--token', 'pcc_x', '--state', dir])
    expect(r.code).to.equal(1)
    expect(r.err).to.match(/http: is refused/)
    expect(readdirSync(dir)).to.deep.equal([])
  })

  it('keeps its keys in a 0600 file in a 0700 folder, and refuses the file once others can read it', () => {
    const keys = newKeys()
    const folder = path.join(dir, 'state')
    const s = { collector_id: 'c-1', name: 'dc1', core_url: 'https://core.example.org', ca_file: null, ed25519_private_key: pem(keys.sign), x25519_private_key: pem(keys.open), enrolled_at: new Date().toISOString() }
    writeState(folder, s)
    writeState(folder, { ...s, name: 'dc1-renamed' })
    expect(statSync(folder).mode & 0o777).to.equal(0o700)
    expect(statSync(statePath(folder)).mode & 0o777).to.equal(0o600)
    // Renamed over, never two: no temporary file left behind.
    expect(readdirSync(folder)).to.deep.equal(['collector.json'])
    const back = readState(folder)!
    expect(back.name).to.equal('dc1-renamed')
    expect(stateKeys(back).sign.asymmetricKeyType).to.equal('ed25519')
    chmodSync(statePath(folder), 0o644)
    expect(() => readState(folder)).to.throw(/can be read by others/)
  })

  it('runs from `portcullis collector` with no server configuration at all', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: dir }
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
    const run = promisify(execFile)
    const r = await run(process.execPath, commandArgs(['collector', 'status', '--state', path.join(dir, 'none')], env), { cwd: root, env }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    )
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(/no collector is enrolled/)
    expect(r.stderr).not.to.match(/DATABASE_URL|MASTER_KEY|cannot start/)
  })
})
