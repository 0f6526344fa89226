/**
 * `portcullis aaa-logs-replay`: the plugin's command, dispatched by the
 * kernel's command line and run in the booted platform, so it works on both
 * engines and resolves `user_group` exclusion rules through the kernel's
 * identity service (which the old stand-alone script could not).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../../../test/kit/app.js'
import { commandArgs } from '../../../test/kit/cli.js'

const TS = '2026-11-21T06:34:11.184829+00:00'
const authz = (i: number, user = `old${i}`) => [TS, 'authorization', 'AUTHZ-FAIL', user, 'edge', '10.3.3.3', '', '', '', '', 'deny', 'shell', '1', `conf t ${i}`, '', '', '', ''].join('\t') + '\n'
const AUTHZ = '/api/v1/aaa/logs/tacacs/authorization'

for (const engine of testEngines()) {
  describe(`aaa-logs-replay through the portcullis command line (${engine})`, function () {
    this.timeout(180_000)
    let t: TestApp
    let dir: string
    const dataDir = () => path.join(dir, 'data')
    const start = async () => (t = await startTestApp({ engine, plugins: ['aaa-logs'], dataDir: dataDir(), masterKey: t?.masterKey, settings: { 'aaa-logs.ingest_enabled': false } }))
    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'aaa-replay-'))
      await start()
    })
    after(async () => {
      await t?.stop()
      rmSync(dir, { recursive: true, force: true })
    })

    /** The command as an operator runs it; the embedded engine's one connection belongs to one process, so the server is stopped meanwhile. */
    async function replay(args: string[]) {
      const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir(), MASTER_KEY: t.masterKey, PLUGINS: 'aaa-logs', LOG_LEVEL: 'error', DATABASE_URL: t.databaseUrl ?? undefined }
      if (engine === 'embedded') await t.stop()
      try {
        // Not spawnSync: the test's server runs in this process and must keep answering (and timing out idle sockets) meanwhile.
        return await new Promise<{ status: number | null; stderr: string }>((resolve) => {
          const c = spawn(process.execPath, commandArgs(['aaa-logs-replay', ...args], env), { env, stdio: ['ignore', 'ignore', 'pipe'] })
          let stderr = ''
          c.stderr.on('data', (d) => (stderr += d))
          c.on('close', (status) => resolve({ status, stderr }))
        })
      } finally {
        if (engine === 'embedded') await start()
      }
    }

    it('replays a file with a progress bar, drops a user group\'s lines, quarantines malformed lines, and never duplicates on a re-run', async () => {
      const group = await t.admin('POST', '/api/v1/user-groups', { body: { name: 'replay-muted' } })
      expect(group.status, group.text).to.equal(201)
      const user = await t.admin('POST', '/api/v1/users', { body: { username: 'muted1', password: 'Quiet-Replay-Account-7', network_login: true, group_ids: [group.body.id] } })
      expect(user.status, user.text).to.equal(201)
      const rule = await t.admin('POST', '/api/v1/log-exclusions', { body: { name: 'muted group', protocol: 'tacacs', match_type: 'user_group', match_value: 'replay-muted' } })
      expect(rule.status, rule.text).to.equal(201)

      const file = path.join(dir, 'export.log')
      const muted = Array.from({ length: 10 }, (_, i) => authz(6000 + i, 'muted1')).join('')
      writeFileSync(file, Array.from({ length: 5000 }, (_, i) => authz(i)).join('') + muted + 'garbage line\n' + authz(5000).slice(0, 40))
      const r1 = await replay(['--kind', 'tacacs_authorization', '--batch', '700', file])
      expect(r1.status, r1.stderr).to.equal(0)
      expect(r1.stderr).to.match(/100\.0%/).and.match(/lines\/s/).and.include('5000 stored, 10 excluded, 2 quarantined')
      const r2 = await replay(['--kind', 'tacacs_authorization', file])
      expect(r2.status, r2.stderr).to.equal(0)
      expect(r2.stderr).to.include('0 lines')

      const list = await t.admin('GET', `${AUTHZ}?per_page=1`)
      expect(list.status, list.text).to.equal(200)
      expect(list.body.total).to.equal(5000)
      expect((await t.admin('GET', `${AUTHZ}?search=muted1`)).body.total_by_filter).to.equal(0)
      expect((await t.admin('GET', `/api/v1/log-exclusions/${rule.body.id}`)).body.dropped_total).to.equal(10)
      expect(await t.app.db.knex('aaa_log_quarantine').select('reason')).to.have.length(2)
    })

    it('refuses wrong arguments with the command\'s usage and status 2', async () => {
      const bad = await replay(['--kind', 'nope', path.join(dir, 'export.log')])
      expect(bad.status).to.equal(2)
      expect(bad.stderr).to.include('--kind is one of tacacs_authentication').and.include('usage: portcullis aaa-logs-replay --kind')
    })
  })
}
