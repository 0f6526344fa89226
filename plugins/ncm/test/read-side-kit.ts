/** What the read side's tests share: a version put in through the collector API (hb's test kit), as a real fetch stores it. */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { takeJob, TestCollector } from '../../../test/kit/ncm-collector.js'

/** Fetch now, take the job, upload `text`: the new version's id. */
export async function putVersion(t: TestApp, col: TestCollector, deviceId: string, text: string): Promise<string> {
  const job = await takeJob(t, col, deviceId)
  const r = await col.upload(TestCollector.ok(job, text))
  expect(r.status, r.text).to.equal(200)
  expect(r.body.outcome, r.text).to.equal('new_version')
  return r.body.version_id
}

/** Every string anywhere in a JSON value, and every key. */
export function walk(x: unknown, out: { keys: string[]; strings: string[] } = { keys: [], strings: [] }) {
  if (typeof x === 'string') out.strings.push(x)
  else if (Array.isArray(x)) for (const v of x) walk(v, out)
  else if (x && typeof x === 'object')
    for (const [k, v] of Object.entries(x)) {
      out.keys.push(k)
      walk(v, out)
    }
  return out
}
