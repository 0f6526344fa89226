/**
 * The change-impact differential (issue 33's proof), the part every protocol shares: traffic sent
 * through a real daemon is recorded per distinct request with the daemon's answer before the
 * deploy; the same traffic is sent again after it; the impact report, asked between the two, must
 * predict exactly the answers that changed. Each protocol's test brings its own traffic, edit and
 * way to key a report's request; this file waits for the ingester, asks the report and compares.
 *
 * What counts as a disagreement:
 * - a request the report lists as changed whose answer before or after is not the daemon's
 *   (decision, and the attributes where the protocol compares them);
 * - a request whose answer the daemon changed and the report does not list, unless it is one the
 *   evaluators may not replay (`mayBeUnreplayable`: a refused login, whose password the log does
 *   not tell) and the report counts that many unreplayable requests;
 * - a request the report counts that was not sent, or one sent and logged that it does not count;
 *   more unreplayable requests than could be; event counts that are not the number sent.
 */
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { ImpactChange, ImpactOutcome, ImpactRequest, PolicyImpact } from '../../sdk/policy-impact.js'
import type { TestApp } from './app.js'
import { skipBecause } from './skip.js'

export type Decision = 'permit' | 'deny'

/** What the daemon answered: the decision and, where compared, the attributes as `name=value`, sorted. */
export interface Answer {
  decision: Decision
  /** null: not compared for this kind of request (commands, a daemon whose client does not show them). */
  attributes: string[] | null
}

/** One distinct request as sent: what the test knows of it. */
export interface Sent<R> {
  key: string
  request: R
  /** How many times it was sent before the deploy (the report's `events`). */
  events: number
  before: Answer
  after: Answer | null
  /** A refused login: the log does not say whether its password was right, so the report may count it unreplayable. */
  mayBeUnreplayable: boolean
}

/** The distinct requests of a run, keyed as the test keys the report's requests. */
export class Traffic<R> {
  readonly sent = new Map<string, Sent<R>>()
  /** Answers of one distinct request that differed within one pass (the harness's fault, or a daemon's). */
  readonly unstable: string[] = []

  /** One request of the first pass and the daemon's answer. */
  before(key: string, request: R, answer: Answer, mayBeUnreplayable = false): void {
    const s = this.sent.get(key)
    if (!s) {
      this.sent.set(key, { key, request, events: 1, before: answer, after: null, mayBeUnreplayable })
      return
    }
    s.events++
    s.mayBeUnreplayable ||= mayBeUnreplayable
    if (!sameAnswer(s.before, answer)) this.unstable.push(`${key}: ${show(s.before)} then ${show(answer)} before the deploy`)
  }

  /**
   * Keeps the requests the daemon logged as sent (`logged`: the distinct requests of the log tables,
   * keyed alike): a packet the daemon could not read (a key it does not share) is logged under
   * another name, or not at all, and is no request of the report's. Answers how many were dropped.
   */
  keepLogged(logged: ReadonlySet<string>): number {
    let dropped = 0
    for (const k of [...this.sent.keys()]) if (!logged.has(k)) dropped += Number(this.sent.delete(k))
    return dropped
  }

  /** One request of the replay. */
  after(key: string, answer: Answer): void {
    const s = this.sent.get(key)
    if (!s) throw new Error(`replayed a request never sent: ${key}`)
    if (s.after && !sameAnswer(s.after, answer)) this.unstable.push(`${key}: ${show(s.after)} then ${show(answer)} after the deploy`)
    s.after ??= answer
  }
}

export const show = (a: Answer | null) => (a ? `${a.decision}${a.attributes ? ` [${a.attributes.join(', ')}]` : ''}` : 'not replayed')
const sameAnswer = (a: Answer, b: Answer) => a.decision === b.decision && (a.attributes === null || b.attributes === null || a.attributes.join('\n') === b.attributes.join('\n'))

/** The observed change of a request, as the report names it (null: answered alike). */
export function observedChange(s: Sent<unknown>): 'permit_to_deny' | 'deny_to_permit' | 'attributes' | null {
  const a = s.after!
  if (s.before.decision !== a.decision) return s.before.decision === 'permit' ? 'permit_to_deny' : 'deny_to_permit'
  if (a.decision === 'permit' && !sameAnswer(s.before, a)) return 'attributes'
  return null
}

/** A report outcome as an `Answer` (`attributes` as `name=value`, sorted, when the protocol compares them). */
export const reportAnswer = (
  o: ImpactOutcome,
  attributes: boolean,
  canonical: (a: { name: string; value: string }) => string = (a) => `${a.name}=${a.value}`,
  keep: (a: { name: string; value: string }) => boolean = () => true,
): Answer => ({
  decision: o.decision,
  attributes: attributes && o.decision === 'permit' ? o.attributes.filter(keep).map(canonical).sort() : attributes ? [] : null,
})

/**
 * Waits until the ingester has read every file under `dir` to its end (its checkpoints), and the
 * sizes stay put for a moment (a daemon still writing its last lines).
 */
export async function waitIngested(t: TestApp, dir: string, timeoutMs = 60_000): Promise<void> {
  const files = (): Map<string, number> => {
    const out = new Map<string, number>()
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name)
        if (e.isDirectory()) walk(p)
        else if (e.isFile()) out.set(p, statSync(p).size)
      }
    }
    walk(dir)
    return out
  }
  const end = Date.now() + timeoutMs
  let settled = 0
  for (;;) {
    const want = files()
    const rows = await t.app.db.knex('aaa_log_checkpoints').select('file', 'offset_bytes')
    const at = new Map<string, number>()
    for (const r of rows) at.set(String(r.file), Math.max(at.get(String(r.file)) ?? 0, Number(r.offset_bytes)))
    const behind = [...want].filter(([f, size]) => size > 0 && (at.get(f) ?? at.get(path.basename(f)) ?? 0) < size)
    if (behind.length === 0 && ++settled >= 3) return
    if (behind.length) settled = 0
    if (Date.now() > end) throw new Error(`the ingester did not read ${behind.map(([f, s]) => `${f} (${at.get(f) ?? 0} of ${s} bytes)`).join(', ')} in time; checkpoints ${JSON.stringify(rows)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * POST the impact route with every change listed (the traffic is far below the cap). Skips the
 * test, saying why, in a build without the route (a plugin's impact route not merged yet).
 */
export async function askImpact(ctx: Mocha.Context, t: TestApp, route: string, body: Record<string, unknown> = {}): Promise<PolicyImpact> {
  const res = await t.admin('POST', route, { body: { days: 1, changes_limit: 5000, group_limit: 500, ...body } })
  if (res.status === 404 && res.body?.code === 'ROUTE_NOT_FOUND') skipBecause(ctx, `${route} is not in this build`)
  expect(res.status, `${route}: ${JSON.stringify(res.body)}`).to.equal(200)
  return res.body as PolicyImpact
}

export interface Comparison {
  disagreements: string[]
  /** Observed changes, by kind. */
  changed: Record<string, number>
  distinct: number
  unreplayable: number
  /** Changes the daemon made to requests the report counted unreplayable (allowed up to that count). */
  unreplayableChanged: number
}

/**
 * Compares the report with the daemon's two answers of each distinct request. `keyOf` keys a
 * report's request as the test keyed what it sent; `attributes(kind)` says whether the protocol's
 * attributes are compared for that kind of request.
 */
export function compareImpact<R>(
  report: PolicyImpact,
  traffic: Traffic<R>,
  o: {
    keyOf: (r: ImpactRequest) => string
    attributes: (r: ImpactRequest) => boolean
    canonical?: (a: { name: string; value: string }) => string
    /** The attributes the daemon's client shows (NAC: eapol_test shows the VLAN only). */
    keep?: (a: { name: string; value: string }) => boolean
    /** The distinct requests of the log tables, keyed as `keyOf` keys (what the report must count). */
    logged: ReadonlySet<string>
    /**
     * The real requests of the log tables, where the report replays only those within the edit's
     * reach (the AAA report): it then counts up to `logged` distinct requests, and its events and
     * unaffected events add up to these. Absent: the report replays every logged request.
     */
    loggedEvents?: number
  },
): Comparison {
  const out: string[] = [...traffic.unstable.map((u) => `unstable answer (same request, same policy): ${u}`)]
  const changed: Record<string, number> = {}
  const listed = new Map<string, ImpactChange>()
  const line = (what: string, s: Sent<R> | undefined, c: ImpactChange | undefined) =>
    `${what}: ${JSON.stringify(s?.request ?? c?.request)}\n    daemon before: ${show(s?.before ?? null)}; after: ${show(s?.after ?? null)}` +
    (c ? `\n    report (${c.change}): before ${show(reportAnswer(c.before, o.attributes(c.request), o.canonical, o.keep))} (rule ${c.before.rule?.name ?? '-'}: ${c.before.reason}); after ${show(reportAnswer(c.after, o.attributes(c.request), o.canonical, o.keep))} (rule ${c.after.rule?.name ?? '-'}: ${c.after.reason})` : '')

  if (report.changes.length !== report.changes_total) out.push(`the report lists ${report.changes.length} of ${report.changes_total} changes: raise changes_limit`)
  for (const c of report.changes) {
    const key = o.keyOf(c.request)
    if (listed.has(key)) out.push(`listed twice: ${key}`)
    listed.set(key, c)
    const s = traffic.sent.get(key)
    if (!s) {
      out.push(line('a change of a request never sent', undefined, c))
      continue
    }
    if (!s.after) continue
    const attrs = o.attributes(c.request)
    const rb = reportAnswer(c.before, attrs, o.canonical, o.keep)
    const ra = reportAnswer(c.after, attrs, o.canonical, o.keep)
    const seen = observedChange(s)
    // An attribute change the daemon's client cannot show (a command's, an ACL beside the VLAN) is, to it, none.
    const predicted = c.change === 'permit_to_deny' || c.change === 'deny_to_permit' ? c.change : c.change === 'attributes' && !sameAnswer(rb, ra) ? 'attributes' : null
    if (seen !== predicted || !sameAnswer(rb, s.before) || !sameAnswer(ra, s.after)) out.push(line(`predicted ${c.change}, the daemon ${seen ?? 'answered alike'}`, s, c))
    if (c.request.events !== s.events) out.push(line(`events: the report counts ${c.request.events}, ${s.events} were sent`, s, c))
  }
  let unreplayableChanged = 0
  for (const s of traffic.sent.values()) {
    if (!s.after) {
      out.push(line('never replayed', s, undefined))
      continue
    }
    const seen = observedChange(s)
    if (seen) changed[seen] = (changed[seen] ?? 0) + 1
    if (!seen || listed.has(s.key)) continue
    if (s.mayBeUnreplayable) unreplayableChanged++
    else out.push(line(`the daemon's answer changed (${seen}), the report does not list it`, s, undefined))
  }
  const u = report.requests.unreplayable
  const candidates = [...traffic.sent.values()].filter((s) => s.mayBeUnreplayable).length
  if (o.loggedEvents === undefined) {
    if (report.requests.distinct !== o.logged.size) out.push(`the report counts ${report.requests.distinct} distinct requests, the log tables hold ${o.logged.size}`)
  } else {
    if (report.requests.distinct > o.logged.size) out.push(`the report counts ${report.requests.distinct} distinct requests in reach, the log tables hold ${o.logged.size} in all`)
    const counted = report.requests.events + report.requests.unaffected.events
    if (counted !== o.loggedEvents) out.push(`the report counts ${report.requests.events} real requests in reach and ${report.requests.unaffected.events} unaffected, the log tables hold ${o.loggedEvents}`)
  }
  if (report.requests.evaluated + u.requests !== report.requests.distinct) out.push(`evaluated ${report.requests.evaluated} + unreplayable ${u.requests} is not distinct ${report.requests.distinct}`)
  if (u.requests > candidates) out.push(`${u.requests} requests counted unreplayable, only ${candidates} could be (refused logins); by reason ${JSON.stringify(u.by_reason)}`)
  if (unreplayableChanged > u.requests) out.push(`${unreplayableChanged} refused logins changed answer unlisted, only ${u.requests} are counted unreplayable`)
  if (u.by_reason.some((b) => !b.reason || !b.description)) out.push(`an unreplayable reason without a name or description: ${JSON.stringify(u.by_reason)}`)
  if (report.limits.reached !== null) out.push(`a limit was reached: ${report.limits.reached}`)
  // The summary counts what the list holds.
  for (const k of ['permit_to_deny', 'deny_to_permit', 'attributes', 'rule'] as const) {
    const n = report.changes.filter((c) => c.change === k).length
    if (report.summary[k].requests !== n) out.push(`summary.${k}.requests ${report.summary[k].requests}, the list holds ${n}`)
  }
  return { disagreements: out, changed, distinct: traffic.sent.size, unreplayable: u.requests, unreplayableChanged }
}

/** One line for the run's output: what was sent, what changed, what the report counted. */
export const describeComparison = (c: Comparison, report: PolicyImpact) =>
  `${report.requests.distinct} distinct requests logged, ${c.distinct} of them sent by the test (${report.requests.events} sent), ${report.requests.evaluated} evaluated, ${c.unreplayable} unreplayable; the daemon changed ${Object.entries(c.changed).map(([k, n]) => `${n} ${k}`).join(', ') || 'nothing'}; the report: ${report.summary.text}`
