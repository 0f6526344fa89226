/**
 * The round trip: a populated installation backed up through the API,
 * restored into a new one, and the answers a user relies on are the same.
 * The target is the engine of the run; the source is the same engine and
 * the other one, so the PostgreSQL run restores an embedded archive (the
 * first-run user's path to production) and the embedded run a PostgreSQL one.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { verifyArchive } from '../../kernel/backup/verify.js'
import { readMasterKey } from '../../kernel/security/master-key.js'
import { startTestApp, testEngines, type TestApp, type TestEngine } from '../kit/app.js'
import { current } from '../deploy/helpers.js'
import { answers, type Answers, freshTarget, OLD_MONTH, PLUGINS, populate, restoreInto, type Populated, type Target } from './helpers.js'

const other = (e: TestEngine): TestEngine => (e === 'postgres' ? 'embedded' : 'postgres')

async function downloadBackup(t: TestApp, file: string): Promise<Response> {
  const res = await fetch(`${t.url}/api/v1/backups`, { method: 'POST', headers: { authorization: `Bearer ${t.adminToken}` } })
  writeFileSync(file, Buffer.from(await res.arrayBuffer()))
  return res
}

describe('backup and restore: the round trip', function () {
  this.timeout(600_000)

  for (const targetEngine of testEngines()) {
    for (const sourceEngine of [targetEngine, other(targetEngine)]) {
      describe(`${sourceEngine} → ${targetEngine}${sourceEngine === targetEngine ? '' : ' (across engines)'}`, () => {
        let source: TestApp
        let restored: TestApp
        let target: Target
        let p: Populated
        let was: Answers
        let now: Answers
        let file: string

        before(async () => {
          source = await startTestApp({ engine: sourceEngine, plugins: PLUGINS })
          p = await populate(source)
          was = await answers(source, p)
          target = await freshTarget(targetEngine, source.masterKey)
          file = path.join(target.dataDir, '..', `${path.basename(target.dataDir)}.tar.gz`)
          const res = await downloadBackup(source, file)
          expect(res.status).to.equal(200)
          // Across engines every table is loaded as a large one is (indexes and keys dropped, built after).
          await restoreInto(target, file, { rebuildIndexesFrom: sourceEngine === targetEngine ? undefined : 1 })
          restored = await startTestApp({ engine: targetEngine, databaseUrl: target.databaseUrl ?? undefined, dataDir: target.dataDir, masterKey: source.masterKey, plugins: PLUGINS })
          now = await answers(restored, p)
        })
        after(async () => {
          await restored?.stop()
          await source?.stop()
        })

        it('the archive names where it comes from: app_version, schema, engine, node, the key id', async () => {
          const { manifest, contents } = await verifyArchive(file, readMasterKey(source.masterKey, 'MASTER_KEY'))
          expect(manifest.app_version).to.equal(source.app.version)
          expect(manifest.engine).to.equal(sourceEngine)
          expect(manifest.node_id).to.equal(source.app.nodeId)
          expect(manifest.schema.kernel).to.match(/^\d{4}_/)
          expect(manifest.schema['aaa-logs']).to.match(/^\d{4}_/)
          const check = await source.app.db.knex('kernel_meta').where({ key: 'master_key_check' }).first('value')
          expect(manifest.master_key.id).to.equal(check!.value)
          expect(JSON.stringify(manifest)).to.not.contain(source.masterKey)
          // The releases are in the database, so in the archive.
          expect(contents.tables.find((t) => t.name === 'release_blobs')!.rows).to.be.greaterThan(0)
        })

        it('the policy test, the logs, the deploys, sign-in, a revoked session and the secret setting answer the same', () => {
          expect(now.policy).to.deep.equal(was.policy)
          expect(was.policy.decision).to.equal('permit')
          expect(now.logs).to.deep.equal(was.logs)
          expect(was.logs.total).to.equal(300)
          expect(now.deploys).to.deep.equal(was.deploys)
          expect(now.deploys.map((d) => d.id)).to.include.members(p.deployIds)
          expect(now.signIn).to.deep.equal({ status: 200, session: true })
          expect(now.wrongPassword).to.equal(401)
          expect(now.revoked).to.equal(401)
          expect(now.setting).to.deep.equal(was.setting)
          expect(now.sealedSetting).to.deep.equal(was.sealedSetting)
        })

        it('every table holds the same rows; each month of the logs is in its own partition; the log counters are not doubled', () => {
          expect(now.counts).to.deep.equal(was.counts)
          expect(now.oldMonth).to.equal(was.oldMonth).and.to.equal(100)
          expect(now.rowCounts).to.deep.equal(was.rowCounts)
          expect(now.rowCounts.find((r) => r.table_name === 'aaa_log_tacacs_authn')!.n).to.equal(300)
          expect(OLD_MONTH.partition).to.match(/y2025m03$/)
        })

        it('every index and constraint of the source is there again', () => {
          expect(now.indexes).to.deep.equal(was.indexes)
          expect(now.constraints).to.deep.equal(was.constraints)
          expect(now.indexes).to.include(`${OLD_MONTH.partition}_pkey`)
        })

        it('the restored release is what the node serves; a render of the restored data differs only by the node\'s own paths; a new deploy opens the sealed keys', async () => {
          const active = now.deploys.find((d) => d.status === 'active' && d.daemon === 'tac_plus-ng')!
          for (let i = 0; i < 100 && current(restored.dataDir, 'tac_plus-ng') !== active.release; i++) await new Promise((r) => setTimeout(r, 100))
          expect(current(restored.dataDir, 'tac_plus-ng')).to.equal(active.release)
          const cfg = (dir: string) => readFileSync(path.join(dir, 'releases', 'tac_plus-ng', 'current', 'tac_plus-ng.cfg'), 'utf8')
          expect(cfg(restored.dataDir)).to.equal(cfg(source.dataDir))
          // The dry run against the restored release: the log destinations under this node's DATA_DIR, nothing else.
          expect(now.pending).to.deep.equal([{ daemon: 'tac_plus-ng', current: active.release, changed: 1 }])
          const changed = now.diffs[0].split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l))
          expect(changed.length).to.be.greaterThan(0)
          for (const l of changed) expect(l).to.match(l.startsWith('+') ? new RegExp(`destination = ">${restored.dataDir}/logs/`) : new RegExp(`destination = ">${source.dataDir}/logs/`))
          const dep = await restored.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'after the restore' } })
          expect(dep.status, dep.text).to.equal(201)
          expect(dep.body.deploys[0].status).to.equal('active')
          for (let i = 0; i < 100 && current(restored.dataDir, 'tac_plus-ng') !== dep.body.deploys[0].release; i++) await new Promise((r) => setTimeout(r, 100))
          expect(cfg(restored.dataDir)).to.contain('backup-tacacs-key')
        })
      })
    }
  }
})
