/**
 * Editions (docs/editions.md): EDITION picks package.json's list. The
 * Community edition loads no Pro code at all (every module a real `npm start`
 * loads is recorded); the Pro edition loads ./pro/reports from source through
 * the out-of-tree mechanism, shows itself in /ready and system info, and has
 * an installation id that is stored once, survives a restart and is the same
 * on every node of a cluster; only an administrator sees it. A wrong EDITION
 * refuses to boot. (The Community build holding no Pro code, and the built
 * Pro edition booting: test/plugins/out-of-tree.test.ts, which builds.)
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { packageEditions, projectRoot } from '../../kernel/version.js'
import { bootRefusal, runsOn, startTestApp, testEngines, type TestApp } from '../kit/app.js'
import { request } from '../kit/http.js'
import { scratchFolder } from '../kit/scratch.js'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const COMMUNITY = packageEditions().community

/** `npm start` (kernel/main.ts from source, PLUGINS and EDITION unset) with every loaded module's URL recorded; stopped once it listens. */
async function recordCommunityStart(): Promise<{ loaded: string[]; ready: { status: number; body: any } }> {
  const dir = scratchFolder('portcullis-editions-')
  const record = path.join(dir, 'loaded.txt')
  writeFileSync(record, '')
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'PLUGINS', 'EDITION', 'PORTCULLIS_CONFIG', 'MASTER_KEY', 'MASTER_KEY_FILE', 'DATA_DIR', 'NODE_OPTIONS'].includes(k)))
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/kernel/fixtures/record-loads.mjs', 'kernel/main.ts'], {
    cwd: projectRoot(),
    env: { ...base, LOAD_RECORD: record, DATA_DIR: path.join(dir, 'data'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_PASSWORD: 'Editions-Community-Start-42' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr!.on('data', (d) => (err += d))
  try {
    const deadline = Date.now() + 120_000
    let m: RegExpExecArray | null
    while (!(m = /is listening on (http:\/\/\S+)/.exec(err))) {
      if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}:\n${err}`)
      if (Date.now() > deadline) throw new Error(`the server did not start:\n${err}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    const ready = await request(m[1], 'GET', '/ready')
    return { loaded: readFileSync(record, 'utf8').split('\n').filter(Boolean), ready }
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

/** What /ready and the administrator's system info say of the edition. */
async function shown(t: TestApp) {
  const ready = await t.req('GET', '/ready')
  expect(ready.status, ready.text).to.equal(200)
  const info = await t.admin('GET', '/api/v1/dashboard/system-info')
  expect(info.status, info.text).to.equal(200)
  return { ready: ready.body, info: info.body }
}

describe('editions', function () {
  this.timeout(240_000)

  it('a wrong EDITION (or config-file edition) refuses to boot with EDITION_UNKNOWN', async () => {
    const e = await bootRefusal({ engine: 'embedded', edition: 'enterprise' })
    expect(e.code).to.equal('EDITION_UNKNOWN')
    expect(e.message).to.equal('EDITION must be community or pro, got "enterprise"')
    const dir = scratchFolder('portcullis-editions-')
    try {
      writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ edition: 'Pro' }))
      const f = await bootRefusal({ engine: 'embedded', env: { PORTCULLIS_CONFIG: path.join(dir, 'config.json') } })
      expect(f.code, 'the edition is lower case').to.equal('EDITION_UNKNOWN')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  // A child process of its own, engine-independent: once, in the embedded run.
  ;(runsOn('embedded') ? describe : describe.skip)('the Community edition (npm start, nothing configured)', () => {
    it('loads every core plugin and no module of pro/', async () => {
      const { loaded, ready } = await recordCommunityStart()
      expect(ready.status).to.equal(200)
      expect(ready.body.edition).to.deep.equal({ id: 'community', name: 'Community' })
      expect(ready.body.plugins.map((p: { id: string }) => p.id).sort()).to.deep.equal([...COMMUNITY].sort())
      const root = pathToFileURL(projectRoot()).href
      // The record holds what was loaded: every core plugin's entry is in it.
      for (const id of COMMUNITY) expect(loaded, id).to.include(`${root}/plugins/${id}/index.ts`)
      const pro = loaded.filter((u) => u.startsWith(`${root}/pro/`))
      expect(pro, 'Pro modules loaded by the Community edition').to.deep.equal([])
    })
  })

  for (const engine of testEngines()) {
    describe(`the Pro edition from source (${engine})`, () => {
      const apps: TestApp[] = []
      const dirs: string[] = []
      after(async () => {
        for (const a of apps) await a.stop().catch(() => undefined)
        for (const d of dirs) rmSync(d, { recursive: true, force: true })
      })

      it('lists pro-reports in /ready and system info; the installation id survives a restart and only an administrator sees it', async () => {
        const dataDir = scratchFolder('portcullis-editions-')
        dirs.push(dataDir)
        const masterKey = randomBytes(32).toString('hex')
        const first = await startTestApp({ engine, edition: 'pro', dataDir, masterKey })
        apps.push(first)
        const { ready, info } = await shown(first)
        expect(ready.edition).to.deep.equal({ id: 'pro', name: 'Pro' })
        expect(ready.plugins).to.deep.include({ id: 'pro-reports', version: '0.1.0' })
        expect(ready.plugins.map((p: { id: string }) => p.id).sort()).to.deep.equal([...COMMUNITY, 'pro-reports'].sort())
        expect(info.edition).to.deep.equal({ id: 'pro', name: 'Pro' })
        expect(info.plugins).to.deep.equal(ready.plugins)
        expect(info.installation_id).to.match(UUID_V4)
        const reader = await first.token({ permissions: ['system.info.read'] })
        const asReader = await first.req('GET', '/api/v1/dashboard/system-info', { token: reader })
        expect(asReader.status).to.equal(200)
        expect(asReader.body.edition.id).to.equal('pro')
        expect(asReader.body.installation_id, 'not an administrator').to.equal(null)

        // The other nodes of the cluster (PostgreSQL: one database) read the same id, and a restart keeps it.
        const db = first.databaseUrl ? { databaseUrl: first.databaseUrl } : {}
        if (first.databaseUrl) {
          const second = await startTestApp({ edition: 'pro', databaseUrl: first.databaseUrl, masterKey })
          apps.push(second)
          expect((await shown(second)).info.installation_id, 'a second node on the same database').to.equal(info.installation_id)
        }
        await first.stop()
        apps.splice(apps.indexOf(first), 1)
        const again = await startTestApp({ engine, edition: 'pro', dataDir, masterKey, ...db })
        apps.push(again)
        expect((await shown(again)).info.installation_id, 'after a restart').to.equal(info.installation_id)
        await again.stop()
        apps.splice(apps.indexOf(again), 1)

        // The same installation started as Community shows no id, not even to an administrator.
        const community = await startTestApp({ engine, dataDir, masterKey, ...db })
        apps.push(community)
        const c = await shown(community)
        expect(c.info.edition).to.deep.equal({ id: 'community', name: 'Community' })
        expect(c.ready.edition).to.deep.equal({ id: 'community', name: 'Community' })
        expect(c.info.installation_id).to.equal(null)
      })
    })
  }
})
