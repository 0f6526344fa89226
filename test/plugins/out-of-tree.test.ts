/**
 * An out-of-tree plugin is built and shipped the documented way
 * (docs/plugins.md, "Building and shipping a plugin"): examples/greetings-plugin
 * is copied to a folder outside the repository, gets the SDK package packed
 * from the server's build (`npm pack dist/sdk`), compiles with its own
 * tsconfig importing `@portcullis/sdk`, and the built server (`npm run build`,
 * then `node dist/kernel/main.js`, what `npm start` runs) loads its built
 * entry from PLUGINS and serves its routes. The plugin's own tests then run
 * there through `@portcullis/sdk/testing` against the built server.
 *
 * The plugin's copy of the SDK is made to throw when loaded: the server must
 * answer `@portcullis/sdk` with its own SDK (one SDK in the process).
 *
 * The same build is the Community edition's: its dist/ holds no file of pro/
 * and no Pro plugin id. Then `npm run build:pro` builds the Pro packages
 * (pro/<name>/dist) and the built server started with EDITION=pro, from
 * another working directory, loads them (docs/editions.md).
 *
 * The server is built in a copy of the checkout (its node_modules linked), not
 * in the repository's dist/: a build cleans dist/ under whatever else runs from it.
 *
 * The builds (a minute or more on a busy CI machine) are the same whatever the
 * engine, so `npm test` makes them once, in its PostgreSQL run (the embedded
 * run is the suite's longest), and tries the built server on both engines
 * there; the embedded run lists this file as pending.
 */
import { expect } from 'chai'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from '../kit/http.js'
import { runsOn, type TestEngine } from '../kit/app.js'
import { sharedPostgres } from '../kit/shared.js'
import { scratchFolder } from '../kit/scratch.js'

/** Both engines in the one run that builds (see above), whichever engine that run is on. */
const ENGINES: TestEngine[] = ['postgres', 'embedded']

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const ADMIN_PASSWORD = 'Correct-Horse-Battery-9'
/** What a checkout holds that the build reads. */
const CHECKOUT = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.sdk.json', 'tsup.config.ts', 'kernel', 'sdk', 'plugins', 'push', 'migrations', 'examples', 'test', 'ui', 'pro']

/** Children run plain Node, as production does: none of this test runner's loader options. */
const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
  delete env.NODE_OPTIONS
  // The engines are this file's (both), not the run's: the plugin's own tests loop over both without it.
  delete env.TEST_ENGINE
  return env
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const r = spawnSync(cmd, args, { cwd, env: childEnv(env), encoding: 'utf8', timeout: 180_000 })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

interface Server {
  url: string
  proc: ChildProcess
  output: () => string
}

/** `node dist/kernel/main.js` in the server folder with the given environment; resolves once it prints where it listens. */
function startServer(cwd: string, env: Record<string, string>, main = 'dist/kernel/main.js'): Promise<Server> {
  const proc = spawn(process.execPath, [main], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  return new Promise((resolve, reject) => {
    const onData = (b: Buffer) => {
      out += b.toString()
      const m = /is listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ url: m[1], proc, output: () => out })
    }
    proc.stdout!.on('data', onData)
    proc.stderr!.on('data', onData)
    proc.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)))
  })
}

async function stopServer(s: Server | undefined): Promise<void> {
  if (!s || s.proc.exitCode !== null) return
  const exited = new Promise((r) => s.proc.once('exit', r))
  s.proc.kill('SIGTERM')
  await exited
}

/** The bootstrap administrator's first sign-in: change the password, get a session. */
async function adminToken(url: string): Promise<string> {
  const first = await request(url, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } })
  expect(first.body, JSON.stringify(first.body)).to.include({ status: 'password_change_required' })
  const changed = await request(url, 'POST', '/api/v1/auth/change-password', {
    token: first.body.password_change_token,
    body: { current_password: ADMIN_PASSWORD, new_password: 'Tidal-Lantern-Orbit-42' },
  })
  expect(changed.status, JSON.stringify(changed.body)).to.equal(200)
  return changed.body.access_token
}

;(runsOn('postgres') ? describe : describe.skip)('an out-of-tree plugin, built against @portcullis/sdk and loaded by the built server', function () {
  // A build of the server, an npm install (from the registry or its cache) and a compile.
  this.timeout(240_000)
  let work: string
  let serverDir: string
  let pluginDir: string
  let entry: string

  before(function () {
    work = scratchFolder('portcullis-oot-')
    serverDir = path.join(work, 'server')
    for (const f of CHECKOUT) cpSync(path.join(ROOT, f), path.join(serverDir, f), { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) })
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(serverDir, 'node_modules'), 'dir')
    run('npm', ['run', 'build', '--silent'], serverDir)
    run('npm', ['pack', path.join(serverDir, 'dist', 'sdk'), '--pack-destination', work, '--silent'], work)
    const tarball = path.join(work, readdirSync(work).find((f) => f.endsWith('.tgz'))!)
    pluginDir = path.join(work, 'greetings-plugin')
    cpSync(path.join(ROOT, 'examples', 'greetings-plugin'), pluginDir, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) })
    run('npm', ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', tarball], pluginDir)
    run('npm', ['run', 'build'], pluginDir)
    entry = path.join(pluginDir, 'dist', 'index.js')
    // Compiled against this copy; at run time the server's own SDK must answer instead.
    writeFileSync(path.join(pluginDir, 'node_modules', '@portcullis', 'sdk', 'index.js'), "throw new Error('the plugin loaded its own copy of @portcullis/sdk, not the server\\'s')\n")
  })
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('the Community build (npm run build) holds no file of pro/ and no Pro plugin id', () => {
    const proIds = readdirSync(path.join(ROOT, 'pro'))
      .filter((d) => existsSync(path.join(ROOT, 'pro', d, 'index.ts')))
      .map((d) => /\bid: '([a-z0-9_-]+)'/.exec(readFileSync(path.join(ROOT, 'pro', d, 'index.ts'), 'utf8'))?.[1])
    expect(proIds).to.include('pro-reports')
    const found: string[] = []
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name)
        if (e.isDirectory()) walk(p)
        else {
          if (/[\\/]pro[\\/]/.test(path.relative(serverDir, p))) found.push(p)
          // The code that runs (.js): the SDK's declarations and source maps keep its doc comments, which may name an example.
          if (!p.endsWith('.js')) continue
          const text = readFileSync(p, 'utf8')
          for (const id of proIds) if (text.includes(id!)) found.push(`${p}: ${id}`)
          if (text.includes('@portcullis/pro-')) found.push(`${p}: @portcullis/pro-`)
        }
      }
    }
    walk(path.join(serverDir, 'dist'))
    expect(readdirSync(path.join(serverDir, 'dist'))).to.include('kernel')
    expect(found, found.join('\n')).to.deep.equal([])
  })

  for (const engine of ENGINES) {
    describe(engine, () => {
      let server: Server | undefined
      let dataDir: string
      before(async () => {
        dataDir = scratchFolder('portcullis-oot-data-')
        const db: Record<string, string> = engine === 'postgres' ? { DATABASE_URL: await (await sharedPostgres()).createDatabase() } : {}
        server = await startServer(serverDir, { PLUGINS: entry, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', MASTER_KEY: randomBytes(32).toString('hex'), ADMIN_PASSWORD, LOG_LEVEL: 'warn', ...db })
      })
      after(async () => {
        await stopServer(server)
        rmSync(dataDir, { recursive: true, force: true })
      })

      it("serves the plugin's routes, permissions, migration and messages", async () => {
        const token = await adminToken(server!.url)
        const created = await request(server!.url, 'POST', '/api/v1/greetings', { token, body: { name: 'alice', message: 'Hello' } })
        expect(created.status, JSON.stringify(created.body)).to.equal(201)
        expect(created.body).to.include({ name: 'alice', message: 'Hello', note: null })
        const got = await request(server!.url, 'GET', `/api/v1/greetings/${created.body.id}`, { token })
        expect(got.body.message, 'its typed setting, default "!"').to.equal('Hello!')
        const dup = await request(server!.url, 'POST', '/api/v1/greetings', { token, body: { name: 'alice', message: 'Hi' }, headers: { 'accept-language': 'ru' } })
        expect(dup.status).to.equal(409)
        expect(dup.body).to.deep.equal({ detail: 'Приветствие для «alice» уже существует.', code: 'GREETING_NAME_TAKEN', field: 'name' })
        const hello = await request(server!.url, 'GET', '/api/v1/greetings/hello?name=eve&times=9', { token })
        expect(hello.status).to.equal(422)
        expect(hello.body.field, 'its query schema').to.equal('times')
        const rbac = await request(server!.url, 'GET', '/api/v1/rbac/schema', { token })
        const group = (rbac.body.groups as { plugin: string; permissions: { name: string }[] }[]).find((g) => g.plugin === 'greetings')
        expect(group?.permissions.map((p) => p.name)).to.deep.equal(['greetings.read', 'greetings.write'])
        expect((await request(server!.url, 'GET', '/api/v1/greetings')).status, 'no token: the gate holds').to.equal(401)
      })
    })
  }

  it("runs the plugin's own tests there, through @portcullis/sdk/testing and the built server", async () => {
    const out = run('npm', ['test', '--silent'], pluginDir, { PORTCULLIS_SERVER: serverDir, TEST_DATABASE_URL: (await sharedPostgres()).url })
    for (const engine of ENGINES) expect(out).to.include(`loaded by configuration (${engine})`)
    // run() has already refused a failing exit status; the report shows the plugin's tests ran.
    expect(out).to.match(/\b[1-9]\d* passing\b/)
    expect(out).not.to.match(/failing|pending/)
  })

  it('npm run build:pro builds the Pro packages, and the built server with EDITION=pro loads them (from any working directory)', async () => {
    const main = path.join(serverDir, 'dist', 'kernel', 'main.js')
    // Before build:pro the built server refuses the Pro edition, saying how to build it.
    const refused = await startServer(work, { EDITION: 'pro', PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(work, 'unbuilt-pro'), LOG_LEVEL: 'warn' }, main).then(
      async (s) => (await stopServer(s), 'it started'),
      (e: Error) => e.message,
    )
    expect(refused).to.include('[PLUGIN_NOT_FOUND]').and.include('npm run build:pro')
    run('npm', ['run', 'build:pro', '--silent'], serverDir)
    expect(readdirSync(path.join(serverDir, 'pro', 'reports', 'dist'))).to.include('index.js')
    const dataDir = scratchFolder('portcullis-oot-pro-')
    let server: Server | undefined
    try {
      // One boot (the engines are the loop's above), on the embedded engine: no DATABASE_URL.
      server = await startServer(work, { EDITION: 'pro', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', MASTER_KEY: randomBytes(32).toString('hex'), ADMIN_PASSWORD, LOG_LEVEL: 'warn' }, main)
      const ready = await request(server.url, 'GET', '/ready')
      expect(ready.status, ready.text).to.equal(200)
      expect(ready.body.edition).to.deep.equal({ id: 'pro', name: 'Pro' })
      expect(ready.body.plugins.map((p: { id: string }) => p.id)).to.include('pro-reports')
    } finally {
      await stopServer(server)
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
