/**
 * The TACACS+ half of the change-impact differential (test/kit/impact-differential.ts): the
 * requests the differential sends (logins, exec starts, commands), keyed as the impact report keys
 * a distinct request of the logs; sending one and reading the daemon's answer; the deploy through
 * the API and the daemon restarted on the release it made.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { ImpactRequest } from '../../../../sdk/policy-impact.js'
import type { TestApp } from '../../../../test/kit/app.js'
import type { Answer } from '../../../../test/kit/impact-differential.js'
import { startTacPlusNg } from '../../../../test/kit/tac-plus-ng.js'
import type { TacacsClient } from '../../client/index.js'
import type { DaemonRun } from './support.js'

export type LoginMethod = 'pap' | 'ascii' | 'chap' | 'mschapv2'

/** One request as the differential sends it. */
export type TacRequest =
  | { kind: 'authentication'; user: string; ip: string; method: LoginMethod; password: string; rightPassword: boolean }
  | { kind: 'session'; user: string; ip: string }
  | { kind: 'command'; user: string; ip: string; line: string[] }

/** A command line as the log keeps it: the words, without the NAS's end marker. */
const commandText = (words: string) => words.replace(/(?:\s+<cr>)+$/, '').trim()

export function tacKey(r: TacRequest): string {
  if (r.kind === 'authentication') return ['authentication', r.user, r.ip, r.method].join('|')
  if (r.kind === 'session') return ['session', r.user, r.ip].join('|')
  return ['command', r.user, r.ip, commandText(r.line.join(' '))].join('|')
}

/** The report's request, keyed as `tacKey` keys what was sent. */
export function reportTacKey(q: ImpactRequest): string {
  const ip = q.nas_ip ?? ''
  if (q.kind === 'tacacs_authentication') return ['authentication', q.username, ip, (q.method ?? '').toLowerCase()].join('|')
  if (q.kind === 'tacacs_session') return ['session', q.username, ip].join('|')
  return ['command', q.username, ip, commandText(q.command ?? '')].join('|')
}

/** The distinct requests of tac_plus-ng's log tables, keyed as `tacKey` keys (the NAS's pairs beside the command are the same on every request the test sends). */
export async function loggedTacKeys(t: TestApp): Promise<Set<string>> {
  const k = t.app.db.knex
  const out = new Set<string>()
  for (const x of await k('aaa_log_tacacs_authn').distinct('username', 'nas_ip', 'authen_type'))
    out.add(['authentication', x.username, x.nas_ip ?? '', String(x.authen_type ?? '').toLowerCase()].join('|'))
  for (const x of await k('aaa_log_tacacs_authz').distinct('username', 'nas_ip', 'command'))
    out.add(x.command ? ['command', x.username, x.nas_ip ?? '', commandText(x.command)].join('|') : ['session', x.username, x.nas_ip ?? ''].join('|'))
  return out
}

/** The real requests of tac_plus-ng's log tables (logins and authorizations). */
export async function loggedTacEvents(t: TestApp): Promise<number> {
  const k = t.app.db.knex
  const [a] = await k('aaa_log_tacacs_authn').count({ n: '*' })
  const [b] = await k('aaa_log_tacacs_authz').count({ n: '*' })
  return Number(a.n) + Number(b.n)
}

/** Exec starts carry the attributes (priv-lvl, shell attributes); a login or a command only its verdict. */
export const tacAttributesCompared = (q: ImpactRequest) => q.kind === 'tacacs_session'

/** The daemon's answer as the comparison reads it (an error or no answer is a deny). */
export async function sendTac(c: TacacsClient, r: TacRequest): Promise<Answer> {
  if (r.kind === 'session') {
    const a = await c.authorize(r.user, { cmd: '' }).catch(() => ({ permitted: false, args: [] as string[] }))
    return { decision: a.permitted ? 'permit' : 'deny', attributes: a.permitted ? [...a.args].sort() : [] }
  }
  if (r.kind === 'command') {
    const a = await c.authorize(r.user, { cmd: r.line[0], args: [...r.line.slice(1), '<cr>'] }).catch(() => ({ permitted: false }))
    return { decision: a.permitted ? 'permit' : 'deny', attributes: null }
  }
  const log = { pap: c.authenticatePap, ascii: c.authenticateAscii, chap: c.authenticateChap, mschapv2: c.authenticateMschapV2 }[r.method].bind(c)
  const a = await log(r.user, r.password).catch(() => ({ pass: false }))
  return { decision: a.pass ? 'permit' : 'deny', attributes: null }
}

/**
 * Deploys tac_plus-ng through the API and answers the active release's configuration file. The
 * release is rendered with the settings renderAndRun set (the same port and log folder).
 */
export async function deployTacacs(t: TestApp): Promise<string> {
  const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'impact differential' } })
  expect(r.status, r.text).to.equal(201)
  expect(r.body.deploys[0].checked, r.body.deploys[0].check_output).to.equal(true)
  return path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'tac_plus-ng.cfg')
}

/** The daemon stopped and started again on `configFile` (same port, same log folder). */
export async function restartTac(run: DaemonRun, configFile: string): Promise<void> {
  const port = run.daemon.port
  await run.daemon.stop()
  run.daemon = await startTacPlusNg({ configFile, port, mkdirs: [run.logDir] })
  run.config = readFileSync(configFile, 'utf8')
}
