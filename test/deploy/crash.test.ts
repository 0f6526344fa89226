/**
 * kill -9 at random moments of a deploy: the previous release stays current
 * and intact. A child process deploys in a loop with a pause between the
 * steps (PORTCULLIS_DEPLOY_TEST_DELAY_MS) and is killed with SIGKILL at a
 * random time; then the folder is checked as the kill left it, and again
 * after the next boot has run its recovery.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import knexPkg from 'knex'
import { startTestApp, type TestApp, runsOn } from '../kit/app.js'
import { current, matches, releasesOf } from './helpers.js'
import { scratchFolder } from '../kit/scratch.js'

const PLUGINS = ['./examples/greetings-plugin', './test/fixtures/plugins/deploy-probe']
const DAEMONS = ['brokend', 'motd', 'secretd']

// PostgreSQL only: skipped (pending) in the embedded run of `npm test`, where it would repeat the PostgreSQL run's.
;(runsOn('postgres') ? describe : describe.skip)('deploy: kill -9 at any moment', function () {
  this.timeout(300_000)
  let dataDir: string
  let t: TestApp
  let databaseUrl: string
  let masterKey: string

  before(async () => {
    dataDir = scratchFolder('portcullis-crash-')
    // The crashed deploy is inspected with a second client on the database: PostgreSQL, whatever TEST_ENGINE says.
    t = await startTestApp({ engine: 'postgres', plugins: PLUGINS, dataDir })
    expect((await t.admin('POST', '/api/v1/deploys', { body: {} })).status).to.equal(201)
    databaseUrl = t.databaseUrl!
    masterKey = t.masterKey
    await t.stop()
  })
  after(() => rmSync(dataDir, { recursive: true, force: true }))

  const rows = async (knex: TestApp['app']['db']['knex']) =>
    knex('deploys').select('id', 'daemon', 'release', 'status', 'files')

  it('leaves the previously active release current and intact, before and after recovery', async () => {
    const kills = Number(process.env.DEPLOY_KILLS ?? 8)
    let deployedInChildren = 0
    const seen: Record<string, number> = {}
    for (let k = 0; k < kills; k++) {
      const delay = 5 + Math.floor(Math.random() * 25)
      const waitMs = Math.floor(Math.random() * delay * 30)
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/deploy/fixtures/deploy-loop.ts'], {
        env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, MASTER_KEY: masterKey, PLUGINS: PLUGINS.join(','), LOG_LEVEL: 'silent', PORTCULLIS_DEPLOY_TEST_DELAY_MS: String(delay) },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      let err = ''
      child.stderr.on('data', (d) => (err += d))
      const exited = new Promise<void>((r) => child.once('exit', () => r()))
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`child not ready: ${err}`)), 60_000)
        child.stdout.on('data', (d) => {
          out += d
          if (out.includes('ready\n')) {
            clearTimeout(timer)
            resolve()
          }
        })
        child.once('exit', (code) => reject(new Error(`child exited ${code}: ${err}`)))
      })
      // Somewhere in the first few deploys: each takes ~10 steps of `delay` ms.
      await new Promise((r) => setTimeout(r, waitMs))
      child.kill('SIGKILL')
      await exited
      deployedInChildren += (out.match(/^deployed /gm) ?? []).length

      // As the kill left it, before any recovery: `current` is a complete release the database
      // recorded (the active one, or the one being activated when the kill came).
      const db = knexPkg({ client: 'pg', connection: databaseUrl })
      const activeBefore = new Map<string, string>()
      try {
        const all = await rows(db)
        for (const daemon of DAEMONS) {
          const active = all.filter((r) => r.daemon === daemon && r.status === 'active')
          expect(active, `${daemon} at kill ${k}`).to.have.length(1)
          activeBefore.set(daemon, active[0].release)
          const cur = current(dataDir, daemon)
          const row = all.find((r) => r.release === cur && r.daemon === daemon && (r.status === 'active' || r.status === 'pending'))
          expect(row, `${daemon} current ${cur} at kill ${k}`).to.not.equal(undefined)
          expect(matches(path.join(releasesOf(dataDir, daemon), cur!), row!.files), `${daemon} files at kill ${k}`).to.equal(true)
        }
        const pending = all.filter((r) => r.status === 'pending')
        const state = !pending.length ? 'no deploy row in flight' : pending.some((r) => current(dataDir, r.daemon) === r.release) ? 'pending, link already switched' : 'pending, link not switched'
        seen[state] = (seen[state] ?? 0) + 1
      } finally {
        await db.destroy()
      }

      // After the next boot (its recovery): the release the database held active is current, intact.
      const app = await startTestApp({ plugins: PLUGINS, dataDir, databaseUrl, masterKey })
      try {
        const all = await rows(app.app.db.knex)
        for (const daemon of DAEMONS) {
          const active = all.filter((r) => r.daemon === daemon && r.status === 'active')
          expect(active, `${daemon} after kill ${k}`).to.have.length(1)
          expect(active[0].release).to.equal(activeBefore.get(daemon))
          expect(current(dataDir, daemon), `${daemon} after kill ${k}`).to.equal(active[0].release)
          expect(matches(path.join(releasesOf(dataDir, daemon), active[0].release), active[0].files), `${daemon} files after kill ${k}`).to.equal(true)
          expect(all.filter((r) => r.status === 'pending')).to.deep.equal([])
          expect(readdirSync(releasesOf(dataDir, daemon)).filter((n) => n.endsWith('.partial') || n.startsWith('.current-'))).to.deep.equal([])
        }
        // And it still deploys.
        expect((await app.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd' } })).status).to.equal(201)
      } finally {
        await app.stop()
      }
    }
    console.log(`      ${kills} kills, ${deployedInChildren} deploys completed in the children; states at the kill: ${JSON.stringify(seen)}`)
  })
})
