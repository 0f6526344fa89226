import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'

const TS = '2026-11-21T06:34:11.184829+00:00'
const authz = (i: number) => [TS, 'authorization', 'AUTHZ-FAIL', `old${i}`, 'edge', '10.3.3.3', '', '', '', '', 'deny', 'shell', '1', `conf t ${i}`, '', '', '', ''].join('\t') + '\n'
const cli = fileURLToPath(new URL('../cli/replay.ts', import.meta.url))

describe('aaa-logs ingest: the replay CLI', function () {
  this.timeout(120000)
  let t: TestApp
  let dir: string
  before(async () => {
    t = await startTestApp({ plugins: ['aaa-logs'], settings: { 'aaa-logs.ingest_enabled': false } })
    dir = mkdtempSync(path.join(os.tmpdir(), 'aaa-replay-'))
  })
  after(async () => {
    await t.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('replays a file with a progress bar; a re-run does not duplicate; a malformed line is quarantined', () => {
    const file = path.join(dir, 'export.log')
    writeFileSync(file, Array.from({ length: 5000 }, (_, i) => authz(i)).join('') + 'garbage line\n' + authz(5000).slice(0, 40))
    const env = { ...process.env, DATABASE_URL: t.databaseUrl!, DATA_DIR: dir }
    const run = () => spawnSync(process.execPath, ['--import', 'tsx', cli, '--kind', 'tacacs_authorization', '--batch', '700', file], { env, encoding: 'utf8' })
    const r1 = run()
    expect(r1.status, r1.stderr).to.equal(0)
    expect(r1.stderr).to.match(/100\.0%/).and.match(/lines\/s/).and.include('5000 stored')
    const r2 = run()
    expect(r2.status, r2.stderr).to.equal(0)
    expect(r2.stderr).to.include('0 lines')
    return (async () => {
      const n = await t.app.db.knex('aaa_log_tacacs_authz').count('* as n').first()
      expect(Number((n as { n: string }).n)).to.equal(5000)
      const q = await t.app.db.knex('aaa_log_quarantine').select('reason')
      expect(q).to.have.length(2)
      const bad = spawnSync(process.execPath, ['--import', 'tsx', cli, '--kind', 'nope', file], { env, encoding: 'utf8' })
      expect(bad.status).to.equal(2)
    })()
  })
})
