/**
 * The real process, as `npm run dev` starts it: the start banner, and a
 * graceful SIGTERM (what an orchestrator sends before killing a pod): the
 * listener closes at once, a request already in flight still gets its answer,
 * and the process exits 0 only after that.
 */
import { expect } from 'chai'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { freePort } from '../kit/postgres.js'
import { sharedPostgres } from '../kit/shared.js'
import { adminTokenFor } from '../kit/tokens.js'
import { runsOn } from '../kit/app.js'
import { scratchFolder } from '../kit/scratch.js'

interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/**
 * By default one request on its own connection (no agent): fetch's pooled
 * keep-alive sockets would let a "new" request ride a connection opened
 * before SIGTERM. Pass a keep-alive agent to behave like a load balancer.
 */
function rawGet(url: string, headers: Record<string, string> = {}, agent: http.Agent | false = false): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.setTimeout(10_000, () => req.destroy(new Error('request timed out')))
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// A server process on PostgreSQL whatever the run's engine: in the PostgreSQL run only, not once more in the embedded run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('the server process (kernel/main.ts)', function () {
  this.timeout(60_000)

  let child: ChildProcess
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>
  let stdout = ''
  let stderr = ''
  let dataDir: string
  let port: number
  let url: string
  let masterKey: string
  let databaseUrl: string

  before(async () => {
    port = await freePort()
    url = `http://127.0.0.1:${port}`
    dataDir = scratchFolder('portcullis-proc-')
    masterKey = randomBytes(32).toString('hex')
    databaseUrl = await (await sharedPostgres()).createDatabase('proc')
    // A clean environment: a developer's PORTCULLIS_CONFIG, ROLE or NODE_ID must not leak in.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      MASTER_KEY: masterKey,
      PLUGINS: './test/fixtures/plugins/probe',
      LOG_LEVEL: 'info',
    }
    child = spawn(process.execPath, ['--import', 'tsx', 'kernel/main.ts'], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: performance.now() })))

    const deadline = Date.now() + 45_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited early (${child.exitCode}):\n${stderr}`)
      const ready = await rawGet(`${url}/ready`).catch(() => null)
      if (ready?.status === 200) break
      if (Date.now() > deadline) throw new Error(`not ready after 45 s:\n${stderr}`)
      await sleep(100)
    }
  })

  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('prints where it listens and how to sign in', () => {
    expect(stderr).to.include(`listening on ${url}`)
    expect(stderr).to.include(`${url}/ready`)
    expect(stderr).to.include('Sign in')
    expect(stderr).to.include(`${url}/api/v1/auth/login`)
  })

  it('drains an in-flight request on SIGTERM, refuses new connections, then exits 0', async () => {
    const token = await adminTokenFor({ databaseUrl, masterKey })
    const auth = { authorization: `Bearer ${token}` }
    // A keep-alive connection opened before SIGTERM, as a load balancer or fetch holds one.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      // The token is accepted: a 200 below is the drain, not an artifact of a refused request.
      const warm = await rawGet(`${url}/api/v1/probe/slow?ms=0`, auth, agent)
      expect(warm.status).to.equal(200)
      expect(warm.headers.connection).to.equal('keep-alive')

      let inFlightDoneAt = 0
      const inFlight = rawGet(`${url}/api/v1/probe/slow?ms=1500`, auth, agent).then((r) => {
        inFlightDoneAt = performance.now()
        return r
      })
      await sleep(200)
      expect(child.kill('SIGTERM')).to.equal(true)

      await sleep(300)
      const late = await rawGet(`${url}/healthz`).then(
        (r) => ({ served: r.status >= 200 && r.status < 300, detail: `HTTP ${r.status}` }),
        (e: NodeJS.ErrnoException) => ({ served: false, detail: e.code ?? e.message }),
      )
      expect(late.served, `a connection opened after SIGTERM was served (${late.detail})`).to.equal(false)
      expect(late.detail).to.equal('ECONNREFUSED')
      expect(child.exitCode, 'exited before the in-flight request finished').to.equal(null)

      const r = await inFlight
      expect(r.status, r.body).to.equal(200)
      expect(JSON.parse(r.body)).to.deep.equal({ slept: 1500 })
      // Otherwise the client may keep sending on the old connection and be served during the drain.
      expect(r.headers.connection, 'the drained response closes its connection').to.equal('close')

      const exit = await exited
      expect(exit, stderr).to.deep.include({ code: 0, signal: null })
      expect(exit.at).to.be.at.least(inFlightDoneAt)
      // An idle keep-alive socket must not hold the exit back until its 5 s timeout (nor the 10 s drain timeout).
      expect(exit.at - inFlightDoneAt, 'exit after the drain').to.be.below(1500)

      const lines = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; level: number; signal?: string })
      const down = lines.find((l) => /shutting down/.test(l.msg))
      expect(down, stdout.slice(-2000)).to.not.equal(undefined)
      expect(down).to.include({ signal: 'SIGTERM' })
      expect(lines.some((l) => /shutdown timeout/.test(l.msg)), 'connections were cut by the timeout').to.equal(false)
    } finally {
      agent.destroy()
    }
  })
})
