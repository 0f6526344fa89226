/**
 * The RADIUS half of the change-impact differential (test/kit/impact-differential.ts): a device
 * administration request keyed as the impact report keys a distinct request of the logs (user,
 * the address the packet came from, the method); the deploy through the API, checked to hold the
 * tree the daemon answered from, and FreeRADIUS started again on the release the next deploy made.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { ImpactRequest } from '../../../sdk/policy-impact.js'
import type { TestApp } from '../../../test/kit/app.js'
import { startFreeradius, type RunningFreeradius } from '../../radius/test/e2e-support.js'

export const radiusKey = (user: string, from: string, method: string) => ['radius', user, from, method.toLowerCase()].join('|')

/** The report's request, keyed as `radiusKey` keys what was sent (MS-CHAPv2 however the log spells it). */
export const reportRadiusKey = (q: ImpactRequest) => radiusKey(q.username ?? '', q.nas_ip ?? '', (q.method ?? '').toLowerCase().replace(/[^a-z0-9]/g, ''))

/** The distinct device-administration requests of FreeRADIUS's log table, keyed as `radiusKey` keys. */
export async function loggedRadiusKeys(t: TestApp): Promise<Set<string>> {
  const rows = await t.app.db.knex('aaa_log_radius_auth').whereNull('nac_method').distinct('username', 'nas_ip', 'auth_type')
  return new Set(rows.map((x) => radiusKey(x.username, x.nas_ip ?? '', String(x.auth_type ?? '').toLowerCase().replace(/[^a-z0-9]/g, ''))))
}

/** The real device-administration requests of FreeRADIUS's log table. */
export async function loggedRadiusEvents(t: TestApp): Promise<number> {
  const [x] = await t.app.db.knex('aaa_log_radius_auth').whereNull('nac_method').count({ n: '*' })
  return Number(x.n)
}

const files = (dir: string, under = ''): string[] =>
  readdirSync(path.join(dir, under), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(dir, path.join(under, e.name)) : [path.join(under, e.name)]))

/** Deploys FreeRADIUS through the API; answers the active release's folder. */
export async function deployRadius(t: TestApp): Promise<string> {
  const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius', comment: 'impact differential' } })
  expect(r.status, r.text).to.equal(201)
  return path.join(t.dataDir, 'releases', 'freeradius', 'current')
}

/** Every file of the tree the daemon runs is in the release, alike: the daemon answered with what was deployed. */
export function expectSameTree(running: string, release: string): void {
  for (const f of files(running)) expect(readFileSync(path.join(release, f), 'utf8'), `${f} in the release`).to.equal(readFileSync(path.join(running, f), 'utf8'))
}

/** FreeRADIUS stopped and started on `release` (the ports are the settings the tree was rendered with). */
export async function restartRadius(daemon: RunningFreeradius | undefined, release: string): Promise<RunningFreeradius> {
  await daemon?.stop()
  return startFreeradius(release)
}
