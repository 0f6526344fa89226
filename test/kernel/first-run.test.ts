/**
 * A newcomer's first run, as `npm start` does it (dist/kernel/main.js, PLUGINS
 * unset; kernel/main.ts under tsx when dist/ is older than the sources): the default edition is every plugin that ships, so every route the
 * README promises answers; and a first start on PostgreSQL without a master
 * key says loudly, in the banner and in an error log line, why no
 * administrator was created; npm's install scripts are allowed by name.
 */
import argon2 from 'argon2'
import { expect } from 'chai'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { packageJson, projectRoot } from '../../kernel/version.js'
import { request } from '../kit/http.js'
import { runsOn, testEngines } from '../kit/app.js'
import { sharedPostgres } from '../kit/shared.js'
import { skipBecause } from '../kit/skip.js'
import { scratchFolder } from '../kit/scratch.js'
import { commandArgs } from '../kit/cli.js'

const ADMIN_PASSWORD = 'First-Run-Newcomer-42'

interface Server {
  url: string
  stdout: () => string
  stderr: () => string
  stop(): Promise<void>
}

/** The server (`npm start`'s dist/kernel/main.js, or kernel/main.ts under tsx: test/kit/cli.ts) with only the given configuration: the test process's own (PLUGINS, DATABASE_URL …) is not passed on. */
async function startMain(env: Record<string, string>): Promise<Server> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'PLUGINS', 'MASTER_KEY', 'MASTER_KEY_FILE', 'DATA_DIR', 'PORTCULLIS_CONFIG', 'ADMIN_PASSWORD', 'LOG_LEVEL', 'EDITION'].includes(k)))
  const full = { ...base, PORT: '0', HOST: '127.0.0.1', ...env }
  const child: ChildProcess = spawn(process.execPath, commandArgs([], full, 'server'), { env: full, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (err += d))
  const deadline = Date.now() + 60_000
  let m: RegExpExecArray | null
  while (!(m = /is listening on (http:\/\/\S+)/.exec(err))) {
    if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}:\n${err}\n${out}`)
    if (Date.now() > deadline) throw new Error(`the server did not start:\n${err}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  // The banner is one write: wait for its last line.
  while (!/\n\n$/.test(err)) await new Promise((r) => setTimeout(r, 20))
  return {
    url: m[1],
    stdout: () => out,
    stderr: () => err,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    },
  }
}

describe('first run: npm start as a newcomer gets it', function () {
  this.timeout(120_000)

  it('the default edition (package.json portcullis.editions.community) is every plugin that ships; Pro adds every Pro package', () => {
    const shipped = readdirSync(path.join(projectRoot(), 'plugins')).filter((d) => existsSync(path.join(projectRoot(), 'plugins', d, 'index.ts')))
    const editions = packageJson().portcullis?.editions ?? {}
    expect([...(editions.community ?? [])].sort()).to.deep.equal(shipped.sort())
    expect(shipped).to.include('aaa-logs')
    const pro = readdirSync(path.join(projectRoot(), 'pro')).filter((d) => existsSync(path.join(projectRoot(), 'pro', d, 'index.ts'))).map((d) => `./pro/${d}`)
    expect(pro).to.include('./pro/reports')
    expect([...(editions.pro ?? [])].sort()).to.deep.equal([...shipped, ...pro].sort())
  })

  // npm alone, no database: once per `npm test`, in its PostgreSQL run (docs/testing.md).
  ;(runsOn('postgres') ? it : it.skip)('npm runs the install scripts the project allows by name (argon2, esbuild) and no other, without a warning', async function () {
    const pkg = packageJson() as { allowScripts?: Record<string, boolean> }
    expect(pkg.allowScripts).to.deep.include({ argon2: true, esbuild: true, 'core-js': false, '@scarf/scarf': false })
    const ls = spawnSync('npm', ['install-scripts', 'ls'], { cwd: projectRoot(), encoding: 'utf8' })
    // npm before 11.x has no install-scripts gate (it runs every script): nothing to check there.
    if (/Unknown command|not a valid command/i.test(ls.stdout + ls.stderr)) skipBecause(this, 'npm before 11 has no install-scripts gate (it runs every script)')
    expect(ls.stdout, ls.stderr).to.include('No packages with unreviewed install scripts.')
    expect(await argon2.verify(await argon2.hash('first-run'), 'first-run')).to.equal(true)
  })

  for (const engine of testEngines()) {
    describe(`with PLUGINS unset (${engine})`, () => {
      let dataDir: string
      let server: Server
      before(async () => {
        dataDir = scratchFolder('portcullis-first-run-')
        const env: Record<string, string> = { DATA_DIR: dataDir, ADMIN_PASSWORD, LOG_LEVEL: 'warn' }
        if (engine === 'postgres') Object.assign(env, { DATABASE_URL: await (await sharedPostgres()).createDatabase(), MASTER_KEY: randomBytes(32).toString('hex') })
        server = await startMain(env)
      })
      after(async () => {
        await server?.stop()
        rmSync(dataDir, { recursive: true, force: true })
      })

      it('loads every plugin of the edition, so the log routes the README promises answer', async () => {
        expect(server.stderr()).to.include('First start: administrator "admin" created with the password from ADMIN_PASSWORD')
        const login = await request(server.url, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } })
        expect(login.status, login.text).to.equal(200)
        const changed = await request(server.url, 'POST', '/api/v1/auth/change-password', {
          token: login.body.password_change_token,
          body: { current_password: ADMIN_PASSWORD, new_password: 'Second-Run-Newcomer-43' },
        })
        expect(changed.status, changed.text).to.equal(200)
        const token = changed.body.access_token as string
        const info = await request(server.url, 'GET', '/api/v1/dashboard/system-info', { token })
        expect(info.body.database_engine).to.equal(engine)
        expect((info.body.plugins as { id: string }[]).map((p) => p.id).sort()).to.deep.equal([...(packageJson().portcullis?.editions?.community ?? [])].sort())
        expect(info.body.edition).to.deep.equal({ id: 'community', name: 'Community' })
        for (const p of ['/api/v1/aaa/logs/tacacs/authentication', '/api/v1/aaa/logs/radius/accounting', '/api/v1/log-exclusions']) {
          const r = await request(server.url, 'GET', p, { token })
          expect(r.status, `${p}: ${r.text}`).to.equal(200)
        }
      })
    })
  }

  // A server on PostgreSQL whatever the run's engine: in the PostgreSQL run only (docs/testing.md).
  ;(runsOn('postgres') ? describe : describe.skip)('PostgreSQL without MASTER_KEY (the only engine where no key is generated)', () => {
    let dataDir: string
    let server: Server
    before(async () => {
      dataDir = scratchFolder('portcullis-first-run-')
      server = await startMain({ DATA_DIR: dataDir, DATABASE_URL: await (await sharedPostgres()).createDatabase(), LOG_LEVEL: 'info', PLUGINS: '' })
    })
    after(async () => {
      await server?.stop()
      rmSync(dataDir, { recursive: true, force: true })
    })

    it('says in the banner and in an error log line why no administrator was created', async () => {
      expect(server.stderr()).to.include('!! No administrator was created: the first administrator is made only when a master key is loaded.')
      expect(server.stderr()).to.include('set MASTER_KEY').and.not.include('Sign in')
      const lines = server.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string })
      const why = lines.find((l) => l.msg.startsWith('no administrator was created'))
      expect(why, server.stdout()).to.not.equal(undefined)
      expect(why!.level, 'pino level 50 = error').to.equal(50)
      expect(why!.msg).to.include('MASTER_KEY')
      const ready = await request(server.url, 'GET', '/ready')
      expect(ready.status).to.equal(503)
      expect(ready.body.checks.master_key).to.equal('missing')
    })
  })
})
