/**
 * A restore killed with kill -9 in the middle of loading the rows leaves the
 * target empty (not even the schema: it is migrated in the same transaction),
 * never half restored, and a second restore then completes.
 * PostgreSQL: the kill is of the `portcullis restore` process while the
 * server is seen running its COPY.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import pg from 'pg'
import { whatItHolds } from '../../kernel/backup/target.js'
import { connect } from '../../kernel/db/connect.js'
import { runsOn, startTestApp } from '../kit/app.js'
import { created } from '../kit/expect.js'
import { cli, freshTarget, spawnCli, type Target } from './helpers.js'
import { scratchFolder } from '../kit/scratch.js'

const PLUGINS = ['inventory', 'aaa-logs']
const ROWS = 300_000

;(runsOn('postgres') ? describe : describe.skip)('restore killed with kill -9 (PostgreSQL)', function () {
  this.timeout(600_000)
  let dir: string
  let file: string
  let target: Target

  before(async () => {
    dir = scratchFolder('portcullis-backup-kill-')
    file = path.join(dir, 'big.tar.gz')
    const t = await startTestApp({ engine: 'postgres', plugins: PLUGINS })
    try {
      await created(t, '/api/v1/devices', { name: 'core', address: '192.0.2.1/32' })
      await t.app.db.knex.transaction(async (trx) => {
        await trx.raw('SET LOCAL statement_timeout = 0')
        await trx.raw(`INSERT INTO aaa_log_tacacs_authn (timestamp, username, nas_ip, node_id, source_file, source_offset, status, message)
          SELECT now() - (g || ' seconds')::interval, 'user' || (g % 1000), '192.0.2.1', gen_random_uuid(), '/var/log/tacacs/authn.log', g, 'success', 'a login line of ordinary length ' || g
            FROM generate_series(1, ${ROWS}) g`)
      })
      await t.app.backups.toFile(file)
      target = await freshTarget('postgres', t.masterKey, PLUGINS)
    } finally {
      await t.stop()
    }
  })
  after(() => {
    rmSync(dir, { recursive: true, force: true })
    if (target) rmSync(target.dataDir, { recursive: true, force: true })
  })

  it('killed while its COPY runs: the target is left empty; restored again, it is whole', async () => {
    const watcher = new pg.Client({ connectionString: target.databaseUrl! })
    await watcher.connect()
    try {
      const child = spawnCli(['restore', file], target.env)
      let out = ''
      child.stdout!.on('data', (d) => (out += d))
      child.stderr!.on('data', (d) => (out += d))
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
      // Until the server is seen loading the log rows: the restore is then half-way through its one transaction.
      let copying = false
      for (let i = 0; i < 1200 && !copying && child.exitCode === null; i++) {
        const r = await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'COPY "aaa_log_tacacs_authn"%' AND state = 'active'`)
        copying = r.rowCount! > 0
        if (!copying) await new Promise((r) => setTimeout(r, 50))
      }
      expect(copying, `the restore was never seen copying the log rows:\n${out}`).to.equal(true)
      child.kill('SIGKILL')
      expect(await exited).to.equal('SIGKILL')
      expect(out).to.not.match(/rows restored/)
      // The server ends the dead client's session and rolls its transaction back.
      for (let i = 0; i < 200; i++) {
        const r = await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
        if (r.rowCount === 0) break
        await new Promise((r) => setTimeout(r, 50))
      }
      // Empty: not even the archive's schema, which the restore migrates inside the same transaction.
      const tables = async () => Number((await watcher.query(`SELECT count(*) AS n FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')`)).rows[0].n)
      expect(await tables()).to.equal(0)
      const db = await connect({ databaseUrl: target.databaseUrl, dataDir: target.dataDir })
      try {
        expect(await whatItHolds(db.knex)).to.equal(null)
      } finally {
        await db.knex.destroy()
      }

      const again = await cli(['restore', file], target.env)
      expect(again.code, again.stdout + again.stderr).to.equal(0)
      const whole = (await watcher.query(`SELECT (SELECT count(*) FROM aaa_log_tacacs_authn)::int AS logs, (SELECT count(*) FROM inventory_devices)::int AS devices, (SELECT count(*) FROM kernel_meta WHERE key = 'master_key_check')::int AS key_check, (SELECT n FROM aaa_log_row_counts WHERE table_name = 'aaa_log_tacacs_authn')::int AS counted`)).rows[0]
      expect(whole).to.deep.equal({ logs: ROWS, devices: 1, key_check: 1, counted: ROWS })
    } finally {
      await watcher.end()
    }
  })
})
