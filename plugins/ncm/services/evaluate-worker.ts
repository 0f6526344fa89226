/**
 * Re-evaluation after a rule changes. A new or changed rule has `evaluated_at` null; this worker
 * (on the primary node only) takes such rules one at a time and evaluates the latest version of
 * every tracked device in the rule's scope, REEVALUATE_BATCH devices a transaction, then drops the
 * results of devices outside the scope and sets `evaluated_at`, if the rule was not changed again
 * meanwhile (`revision`). Until then the report says the rule is "evaluating". No mail: a rule
 * change is the operator's own act; mail is for a device that changed.
 *
 * It wakes when a rule is written on this node (`kick`) and every POLL_MS otherwise (a rule
 * written through another node). Its timer never holds the process open.
 */
import { gunzipSync } from 'node:zlib'
import { uuidArray } from '../../../sdk/index.js'
import type { RuleRow } from '../tables-compliance.js'
import type { NcmContext } from './context.js'
import { evaluateConfig } from './evaluate.js'
import { compiledRule, writeResults } from './evaluate-store.js'

export const REEVALUATE_BATCH = 200
const POLL_MS = 10_000
const CONFIG_PURPOSE = 'ncm.config'

export class Reevaluation {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> = Promise.resolve()
  private busy = false
  private again = false
  private stopped = false

  constructor(
    private readonly c: NcmContext,
    private readonly primary: boolean,
  ) {}

  start(): void {
    if (!this.primary) return
    this.timer = setInterval(() => this.kick(), POLL_MS)
    this.timer.unref()
    this.kick()
  }

  /** Look for work now (a rule was written); a pass under way looks again when it ends. */
  kick(): void {
    if (!this.primary || this.stopped) return
    if (this.busy) {
      this.again = true
      return
    }
    this.busy = true
    this.running = this.loop().finally(() => {
      this.busy = false
    })
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    await this.running
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false
        while (!this.stopped && (await this.pass())) {
          /* one rule per pass */
        }
      } while (this.again && !this.stopped)
    } catch (e) {
      // Tried again at the next poll; the rule keeps showing "evaluating" meanwhile.
      this.c.logger.error({ err: e }, 'ncm: compliance re-evaluation failed')
    }
  }

  /** One rule that needs it, evaluated on every device in its scope; false when none needs it. */
  private async pass(): Promise<boolean> {
    const knex = this.c.database.knex
    const rule = await knex('ncm_rules').where({ enabled: true }).whereNull('evaluated_at').orderBy('updated_at').first()
    if (!rule) return false
    const scope = await this.scope(rule)
    let cursor: string | null = null
    for (;;) {
      if (this.stopped) return false
      const q = knex('ncm_devices').whereNotNull('latest_version_id').orderBy('device_id').limit(REEVALUATE_BATCH).select('device_id', 'latest_version_id')
      if (cursor) q.where('device_id', '>', cursor)
      const batch = (await q) as { device_id: string; latest_version_id: string }[]
      if (!batch.length) break
      cursor = batch[batch.length - 1].device_id
      const mine = batch.filter((d) => !scope || scope.has(d.device_id.toLowerCase()))
      if (mine.length && !(await this.evaluateBatch(rule, mine))) return true
    }
    await knex.transaction(async (trx) => {
      if (scope) await trx('ncm_rule_results').where({ rule_id: rule.id }).whereRaw('NOT (device_id = ANY(?::uuid[]))', [uuidArray([...scope])]).delete()
      await trx('ncm_rules').where({ id: rule.id, revision: rule.revision }).update({ evaluated_at: new Date() })
    })
    return true
  }

  /** The device ids a group rule covers (null: every device). */
  private async scope(rule: RuleRow): Promise<Set<string> | null> {
    if (!rule.device_group_id) return null
    const groups = new Set((await this.c.inventory.groupDescendants(rule.device_group_id)).map((g) => g.toLowerCase()))
    const devices = await this.c.inventory.listDevices()
    return new Set(devices.filter((d) => d.device_group_id && groups.has(d.device_group_id.toLowerCase())).map((d) => d.id.toLowerCase()))
  }

  /** False when the rule changed under the pass (it starts over with the new revision). */
  private async evaluateBatch(rule: RuleRow, devices: { device_id: string; latest_version_id: string }[]): Promise<boolean> {
    const knex = this.c.database.knex
    const texts = (await knex('ncm_versions as v')
      .join('ncm_blobs as b', function () {
        this.on('b.device_id', '=', 'v.device_id').andOn('b.raw_sha256', '=', 'v.raw_sha256')
      })
      .whereRaw('v.id = ANY(?::uuid[])', [uuidArray(devices.map((d) => d.latest_version_id))])
      .select('v.id', 'v.device_id', 'b.sealed', 'b.masked')) as { id: string; device_id: string; sealed: string; masked: string }[]
    const opened = await this.c.secrets.decryptMany(
      CONFIG_PURPOSE,
      texts.map((t) => t.sealed),
    )
    const compiled = compiledRule(rule)
    const now = new Date()
    const results = texts.map((t, i) => ({
      deviceId: t.device_id,
      versionId: t.id,
      outcomes: evaluateConfig(gunzipSync(Buffer.from(opened[i], 'base64')).toString('utf8'), t.masked, [compiled]),
    }))
    return knex.transaction(async (trx) => {
      const current = await trx('ncm_rules').where({ id: rule.id }).forShare().first('revision', 'enabled')
      if (!current || current.revision !== rule.revision || !current.enabled) return false
      // A device whose ingest stored a newer version meanwhile keeps what its hook wrote.
      const latest = new Map(
        (
          (await trx('ncm_devices')
            .whereRaw('device_id = ANY(?::uuid[])', [uuidArray(results.map((r) => r.deviceId))])
            .forShare()
            .select('device_id', 'latest_version_id')) as { device_id: string; latest_version_id: string | null }[]
        ).map((d) => [d.device_id, d.latest_version_id]),
      )
      for (const r of results) if (latest.get(r.deviceId) === r.versionId) await writeResults(trx, r.deviceId, r.versionId, r.outcomes, now)
      return true
    })
  }
}
