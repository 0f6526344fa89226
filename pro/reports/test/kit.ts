/** Shared by the reports tests: the app with the fixture sources, users, events, waiting. */
import { randomUUID } from 'node:crypto'
import { jsonText } from '@portcullis/sdk'
import type { TestApp } from '../../../test/kit/app.js'
import type { Definition, Run } from '../schemas.js'

export const PLUGINS = ['inventory', './pro/reports/test/fixture', './pro/reports']
export const EVENTS = 'report-fixture.events'
export const SECRETS = 'report-fixture.secrets'
export const SLOW = 'report-fixture.slow'

export interface Problem {
  detail: string
  code: string
  field: string | null
}

export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A user holding a role with `permissions`; its id, for changing it later. */
export async function user(t: TestApp, permissions: string[]): Promise<{ id: string; token: string }> {
  const id = randomUUID()
  return { id, token: await t.token({ permissions, sub: id }) }
}

export async function setPermissions(t: TestApp, userId: string, permissions: string[]): Promise<void> {
  const knex = t.app.db.knex
  const roleIds = await knex('user_roles').where({ user_id: userId }).pluck('role_id')
  await knex('roles').whereIn('id', roleIds).update({ permissions: jsonText(permissions) })
}

export async function addEvents(t: TestApp, n: number, o: { kind?: string; at?: Date; deviceGroupId?: string | null; userGroupId?: string | null; username?: string } = {}): Promise<void> {
  const at = o.at ?? new Date(Date.now() - 3_600_000)
  const rows = Array.from({ length: n }, (_, i) => ({
    kind: o.kind ?? 'event',
    at: new Date(at.getTime() - i * 1000),
    username: o.username ?? `user${i}`,
    message: `message ${i}`,
    device_group_id: o.deviceGroupId ?? null,
    user_group_id: o.userGroupId ?? null,
  }))
  for (let i = 0; i < rows.length; i += 500) await t.app.db.knex('report_fixture_events').insert(rows.slice(i, i + 500))
}

export const body = (o: Partial<Record<keyof Definition, unknown>> = {}) => ({
  name: `r-${randomUUID().slice(0, 8)}`,
  sources: [EVENTS],
  time_range: { relative: 'last_7d' },
  formats: ['html'],
  ...o,
})

export async function finished(t: TestApp, runId: string, token?: string): Promise<Run> {
  return waitFor(`run ${runId} to finish`, async () => {
    const r = await t.req<Run>('GET', `/api/v1/reports/runs/${runId}`, { token: token ?? t.adminToken })
    return ['done', 'failed', 'cancelled'].includes(r.body.state) ? r.body : null
  })
}
