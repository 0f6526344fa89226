/**
 * What the FreeRADIUS end-to-end tests share: rendering through the
 * registered renderer from a repeatable-read snapshot, writing a release,
 * `freeradius -C`, running the daemon on loopback ports, radclient, and the
 * MS-CHAPv2 response (RFC 2759) from the plugin's own client (client/mschapv2.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { RenderedFile } from '../../../sdk/index.js'
import type { TestApp } from '../../../test/kit/app.js'
import { challengeResponse, mschap2ResponseValue, ntResponseFromHash } from '../client/mschapv2.js'

export const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0
export const FREERADIUS_PRESENT = has('freeradius') && has('radclient')
export const FREERADIUS_SKIP = 'FreeRADIUS 3.2 (Debian: freeradius, freeradius-utils) is not installed'

export async function renderFreeradius(t: TestApp): Promise<RenderedFile[]> {
  const entry = t.app.registry.renderers.find((r) => r.renderer.id === 'radius.freeradius')
  expect(entry, 'the radius plugin registers renderer radius.freeradius').to.not.equal(undefined)
  return t.app.db.transaction((trx) => entry!.renderer.render(trx), { isolation: 'repeatable read' })
}

export function writeRelease(dir: string, files: RenderedFile[]): void {
  for (const f of files) {
    const p = path.join(dir, f.path)
    mkdirSync(path.dirname(p), { recursive: true })
    writeFileSync(p, f.content, { mode: f.mode })
    chmodSync(p, f.mode)
  }
}

/** The deploy's check (`-l stdout`: nothing is written to the tree's log directory, which a test may not own). */
export function checkConfig(dir: string): { ok: boolean; output: string } {
  const r = spawnSync('freeradius', ['-C', '-l', 'stdout', '-d', dir], { encoding: 'utf8' })
  if (r.status === 0) return { ok: true, output: '' }
  // Again in debug mode, for a message worth reading.
  const x = spawnSync('freeradius', ['-XC', '-l', 'stdout', '-d', dir], { encoding: 'utf8' })
  return { ok: false, output: (x.stdout + x.stderr).split('\n').slice(-25).join('\n') }
}

export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4')
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r))
  const { port } = s.address()
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

export interface RunningFreeradius {
  output: () => string
  stop(): Promise<void>
}

export async function startFreeradius(dir: string): Promise<RunningFreeradius> {
  const child: ChildProcess = spawn('freeradius', ['-f', '-xx', '-l', 'stdout', '-d', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const deadline = Date.now() + 10_000
  while (!out.includes('Ready to process requests')) {
    if (child.exitCode !== null) throw new Error(`freeradius exited ${child.exitCode}:\n${out.slice(-3000)}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`freeradius did not become ready:\n${out.slice(-3000)}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))])
      if (child.exitCode === null) child.kill('SIGKILL')
    },
  }
}

/**
 * The app's FreeRADIUS tree listening on 127.0.0.1 at free ports: settings through the API, rendered
 * into `releaseDir`, checked with `freeradius -C`, started. What every daemon test begins with.
 */
export async function deployFreeradius(t: TestApp, releaseDir: string): Promise<{ daemon: RunningFreeradius; port: number }> {
  const port = await freeUdpPort()
  const set = async (key: string, value: unknown) => {
    const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
    expect(r.status, `setting ${key}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 204])
  }
  await set('radius.listen_address', '127.0.0.1')
  await set('radius.auth_port', port)
  await set('radius.acct_port', await freeUdpPort())
  mkdirSync(releaseDir, { recursive: true })
  writeRelease(releaseDir, await renderFreeradius(t))
  const check = checkConfig(releaseDir)
  expect(check.ok, `freeradius -C:\n${check.output}`).to.equal(true)
  return { daemon: await startFreeradius(releaseDir), port }
}

export interface RadclientResult {
  /** `Access-Accept`, `Access-Reject`, `Access-Challenge`, `Accounting-Response`, or null (no answer). */
  code: string | null
  /** In packet order, as radclient decodes them. */
  attributes: { name: string; value: string }[]
  /** The reply's length in bytes, from radclient's "Received … length N". */
  length: number | null
  raw: string
}

/**
 * One request through radclient (`pairs` as radclient reads them, one per line); `status` sends
 * Status-Server. `wait`: radclient's retries and timeout (default one try, 3 s). `--` goes before the
 * address, so a secret may start with `-`; radclient's own complaint stays in `raw`.
 */
export async function radclient(port: number, kind: 'auth' | 'acct' | 'status', secret: string, pairs: string[], wait = ['-r', '1', '-t', '3']): Promise<RadclientResult> {
  const child = spawn('radclient', ['-x', ...wait, '--', `127.0.0.1:${port}`, kind, secret], { stdio: ['pipe', 'pipe', 'pipe'] })
  let raw = ''
  child.stdout.on('data', (d) => (raw += d))
  child.stderr.on('data', (d) => (raw += d))
  child.stdin.on('error', (e) => (raw += `\n(stdin: ${e.message})`))
  child.stdin.end(pairs.join(',\n') + '\n')
  await new Promise((r) => child.once('close', r))
  const m = /Received (Access-Accept|Access-Reject|Access-Challenge|Accounting-Response) .* length (\d+)/.exec(raw)
  const attributes = m
    ? raw
        .slice(m.index)
        .split('\n')
        .slice(1)
        .map((l) => /^\t([A-Za-z0-9-]+)(?::\d+)? = (.*)$/.exec(l))
        .filter((x): x is RegExpExecArray => x !== null)
        .map(([, name, v]) => ({ name, value: v.startsWith('"') ? v.slice(1, -1).replace(/\\(["\\])/g, '$1') : v }))
    : []
  return { code: m ? m[1] : null, attributes, length: m ? Number(m[2]) : null, raw }
}

/** radclient's string syntax. */
export const rcString = (s: string) => `"${s.replace(/[\\"]/g, (c) => '\\' + c)}"`

/**
 * The MS-CHAP-Challenge and MS-CHAP2-Response attributes (radclient hex) for
 * `username` whose NT hash is `ntHash` (RFC 2759 GenerateNTResponse).
 */
export function mschapv2Pairs(username: string, ntHash: string, authChallenge: Buffer, peerChallenge: Buffer): string[] {
  const nt = ntResponseFromHash(authChallenge, peerChallenge, username, Buffer.from(ntHash, 'hex'))
  const response = mschap2ResponseValue(1, peerChallenge, nt)
  return [`User-Name = ${rcString(username)}`, `MS-CHAP-Challenge = 0x${authChallenge.toString('hex')}`, `MS-CHAP2-Response = 0x${response.toString('hex')}`]
}

/**
 * MS-CHAPv1 (RFC 2433): an 8-byte MS-CHAP-Challenge and MS-CHAP-Response (ident, flags 1 = use the
 * NT response, 24 zero bytes where the LM response would be, the NT response).
 */
export function mschapv1Pairs(username: string, ntHash: string, challenge: Buffer): string[] {
  const response = Buffer.concat([Buffer.from([1, 1]), Buffer.alloc(24), challengeResponse(challenge, Buffer.from(ntHash, 'hex'))])
  return [`User-Name = ${rcString(username)}`, `MS-CHAP-Challenge = 0x${challenge.toString('hex')}`, `MS-CHAP-Response = 0x${response.toString('hex')}`]
}
