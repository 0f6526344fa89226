/**
 * What the full-chain test shares: the app with every AAA plugin, API calls
 * that must succeed, the daemons started from the deployed `current` release,
 * RADIUS requests through radclient (optionally from another loopback source
 * address), and polling the log API until the ingester has stored entries.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { expect } from 'chai'
import { freeUdpPort, mschapv2Pairs, radclient, rcString, startFreeradius, type RadclientResult, type RunningFreeradius } from '../../plugins/radius/test/e2e-support.js'
import { freePort, startTacPlusNg, type RunningTacPlusNg } from '../kit/tac-plus-ng.js'
import { startTestApp, type TestApp } from '../kit/app.js'

export { freePort, freeUdpPort, mschapv2Pairs, rcString }
export type { RadclientResult }

/** The default edition minus mfa. */
export const CHAIN_PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs']

export const startChainApp = () => startTestApp({ plugins: CHAIN_PLUGINS })

export async function ok(t: TestApp, method: string, p: string, body: unknown, status: number | number[]): Promise<any> {
  const r = await t.admin(method, p, { body })
  expect(r.status, `${method} ${p} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).to.be.oneOf(Array.isArray(status) ? status : [status])
  return r.body
}
export const created = (t: TestApp, p: string, body: Record<string, unknown>) => ok(t, 'POST', p, body, 201)
export const setSetting = (t: TestApp, key: string, value: unknown) => ok(t, 'PUT', `/api/v1/settings/${key}`, { value }, [200, 204])

/** POST /api/v1/deploys for every daemon: 201, each release active. */
export async function deployAll(t: TestApp): Promise<any[]> {
  const body = await ok(t, 'POST', '/api/v1/deploys', { comment: 'full-chain e2e' }, 201)
  for (const d of body.deploys) expect(d.status, `${d.daemon}: ${JSON.stringify(d)}`).to.equal('active')
  return body.deploys
}

export const currentRelease = (t: TestApp, daemon: string) => path.join(t.dataDir, 'releases', daemon, 'current')

export const FREERADIUS_PRESENT = ['freeradius', 'radclient'].every((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status === 0)

export const startFreeradiusCurrent = (t: TestApp): Promise<RunningFreeradius> => startFreeradius(currentRelease(t, 'freeradius'))

export const startTacPlusNgCurrent = (t: TestApp, port: number): Promise<RunningTacPlusNg> =>
  startTacPlusNg({ configFile: path.join(currentRelease(t, 'tac_plus-ng'), 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })

export interface Radius {
  port: { auth: number; acct: number }
  /** PAP (or MS-CHAPv2 given the NT hash) from `from` (default 127.0.0.1). */
  pap(user: string, password: string, secret: string, from?: string): Promise<RadclientResult>
  mschapv2(user: string, ntHash: string, secret: string): Promise<RadclientResult>
  acct(secret: string, pairs: string[]): Promise<RadclientResult>
}

export function radius(auth: number, acct: number): Radius {
  const src = (from?: string) => (from ? [`Packet-Src-IP-Address = ${from}`] : [])
  const send = (pairs: string[], secret: string) => radclient(auth, 'auth', secret, [...pairs, 'Message-Authenticator = 0x00'])
  return {
    port: { auth, acct },
    pap: (user, password, secret, from) => send([`User-Name = ${rcString(user)}`, `User-Password = ${rcString(password)}`, ...src(from)], secret),
    mschapv2: (user, nt, secret) => send(mschapv2Pairs(user, nt, randomBytes(16), randomBytes(16)), secret),
    acct: (secret, pairs) => radclient(acct, 'acct', secret, pairs),
  }
}

export const attr = (r: RadclientResult, name: string) => r.attributes.filter((a) => a.name === name).map((a) => a.value)

/**
 * GET a log list with `query` until `want` entries are there (the ingester
 * polls the folders), or fail with what was there.
 */
export async function waitForLogs(t: TestApp, kind: string, query: Record<string, string>, want: number, timeoutMs = 20_000): Promise<any[]> {
  const qs = new URLSearchParams({ per_page: '200', sort_by: 'timestamp', sort_order: 'asc', ...query }).toString()
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const r = await t.admin('GET', `/api/v1/aaa/logs/${kind}?${qs}`)
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    if (r.body.items.length >= want) return r.body.items
    if (Date.now() > deadline) {
      const all = await t.admin('GET', `/api/v1/aaa/logs/${kind}?per_page=200`)
      const q = await t.app.db.knex('aaa_log_quarantine').select('reason', 'source_file').limit(5).catch(() => [])
      throw new Error(`${kind}?${qs}: ${r.body.items.length} of ${want} entries after ${timeoutMs} ms; all: ${JSON.stringify(all.body.items)}; quarantine: ${JSON.stringify(q)}`)
    }
    await new Promise((res) => setTimeout(res, 200))
  }
}
