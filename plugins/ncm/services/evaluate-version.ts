/**
 * The compliance hook on every new configuration version (services/hooks.ts): in the ingest
 * transaction, the rules that cover the device are evaluated on the raw text, their results stored
 * with masked evidence, and the results of rules that no longer cover the device dropped. The
 * callback it returns (run after the commit) mails the rules with `notify` that the device newly
 * fails, once for this version.
 */
import type { Knex } from 'knex'
import { ncmComplianceMailTo } from '../settings.js'
import type { NcmContext } from './context.js'
import type { AfterCommit, NewVersion } from './hooks.js'
import { evaluateConfig } from './evaluate.js'
import { compiledRule, rulesCovering, writeResults } from './evaluate-store.js'
import { sendViolationMail, type Violation } from './compliance-mail.js'

export async function evaluateNewVersion(c: NcmContext, trx: Knex.Transaction, v: NewVersion): Promise<AfterCommit | void> {
  const groupIds = await c.inventory.deviceGroupIds(v.deviceId, trx)
  const rules = await rulesCovering(trx, groupIds)
  const covered = rules.map((r) => r.id)
  const stale = trx('ncm_rule_results').where({ device_id: v.deviceId })
  await (covered.length ? stale.whereNotIn('rule_id', covered) : stale).delete()
  if (!rules.length) return
  const now = new Date()
  const outcomes = evaluateConfig(
    v.raw,
    v.masked,
    rules.map((r) => compiledRule(r)),
  )
  const written = await writeResults(trx, v.deviceId, v.versionId, outcomes, now)
  const byId = new Map(rules.map((r) => [r.id, r]))
  const violations: Violation[] = written
    .filter((w) => w.newlyFailing && byId.get(w.ruleId)!.notify)
    .map((w) => {
      const r = byId.get(w.ruleId)!
      return { name: r.name, requirement: r.requirement, pattern: r.pattern, evidence: outcomes.get(w.ruleId)!.evidence }
    })
  if (!violations.length) return
  const to = await c.settings.get(ncmComplianceMailTo, trx)
  if (!to.length) return
  await trx('ncm_rule_results')
    .where({ device_id: v.deviceId })
    .whereIn(
      'rule_id',
      written.filter((w) => w.newlyFailing && byId.get(w.ruleId)!.notify).map((w) => w.ruleId),
    )
    .update({ notified_at: now })
  const device = await c.inventory.getDevice(v.deviceId, trx)
  const mail = { to, device: device?.name ?? v.deviceId, versionId: v.versionId, fetchedAt: v.firstFinishedAt, violations }
  return () => sendViolationMail(c, mail)
}
