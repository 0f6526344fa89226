/**
 * One impact report: read the window's distinct requests (aaa-logs, the log replica), the deployed
 * inputs of each daemon (its active release's policy-test-inputs.json) and the pending ones (the
 * database, one repeatable-read snapshot), then replay every request on both sides within the bounds.
 */
import { ImpactAccumulator, PHRASE_SAY, type PolicyImpact } from '../../../sdk/index.js'
import type { AaaLogsService, DistinctRadiusRequest, DistinctTacacsRequest } from '../../aaa-logs/api.js'
import { batchEvaluator, batchShared, type BatchEvaluator } from './batch-evaluate.js'
import { DAEMON_OF, parsePolicyInputs, POLICY_INPUTS_FILE, takePolicyInputs, type InputsDeps, type PolicyInputs, type Protocol } from './deployed-inputs.js'
import { editReach, type EditReach } from './impact-reach.js'
import { directoryUser, radiusInput, replayOne, tacacsInput, UNREPLAYABLE, type ImpactNames, type Replayable, type Sides, type UnreplayableReason } from './impact.js'
import type { DatabaseService, DeploysService, Say } from '../../../sdk/index.js'

export interface ImpactRunDeps extends InputsDeps {
  database: DatabaseService
  deploys: DeploysService
  logs: AaaLogsService
}

export interface ImpactBounds {
  days: number
  maxRequests: number
  timeBudgetSeconds: number
  changesLimit: number
  groupLimit: number
  /** Only this protocol (a deploy of its daemon alone); both when absent. */
  protocol?: Protocol
  /** The language of the summary sentence and of the changes' reasons (the route's `req.t`); English without. */
  say?: Say
}

const DAY_MS = 86_400_000
/** Replayed requests between two yields to the event loop (other requests keep being served). */
const YIELD_EVERY = 4096

export async function runImpact(d: ImpactRunDeps, b: ImpactBounds, now = new Date()): Promise<PolicyImpact> {
  const started = Date.now()
  const deadline = started + b.timeBudgetSeconds * 1000
  const budget = new AbortController()
  const timer = setTimeout(() => budget.abort(new Error('time budget')), b.timeBudgetSeconds * 1000)
  try {
    const protocols = (['tacacs', 'radius'] as const).filter((p) => d[p] && (!b.protocol || b.protocol === p))
    const from = new Date(now.getTime() - b.days * DAY_MS)

    // Both sides of each protocol first (the policy test's reads, well under a second), then the edit's
    // reach, so the log scan ships only the requests in reach.
    const deployed: PolicyImpact['compared']['deployed'] = []
    const shared = batchShared()
    // A reader's language: the reasons are kept as phrases and said in it when the answer is written (acc.result).
    const words = b.say ? PHRASE_SAY : undefined
    // The releases before the snapshot: the embedded engine has one connection, which the transaction holds.
    const releases = new Map<Protocol, Awaited<ReturnType<DeploysService['currentFiles']>>>()
    for (const protocol of protocols) releases.set(protocol, await d.deploys.currentFiles(DAEMON_OF[protocol], { reveal: true }))
    const { inputs, names } = await d.database.transaction(
      async (trx) => {
        const inputs = new Map<Protocol, { kept: PolicyInputs | null; pending: PolicyInputs; release: string | null }>()
        const groupIds = new Set<string>()
        const userGroupIds = new Map<string, string[]>()
        const deviceGroups = new Map<string, string | null>()
        const deviceGroupOf = new Map<string, string | null>()
        for (const protocol of protocols) {
          const daemon = DAEMON_OF[protocol]
          const release = releases.get(protocol) ?? null
          const file = release?.files.find((f) => f.path === POLICY_INPUTS_FILE)
          const kept = file ? parsePolicyInputs(file.content) : null
          deployed.push({ daemon, release: kept ? release!.release : null, deploy_id: kept ? release!.deploy_id || null : null, deployed_at: kept ? release!.activated_at : null })
          const pending = await takePolicyInputs(trx, d, protocol)
          inputs.set(protocol, { kept, pending, release: kept ? release!.release : null })
          for (const x of [pending, kept].filter((x): x is PolicyInputs => x !== null)) {
            for (const u of x.users) {
              // The pending side first: the groups as edited.
              if (!userGroupIds.has(u.id)) userGroupIds.set(u.id, u.group_ids)
              for (const g of u.group_ids) groupIds.add(g)
            }
            for (const g of x.device_groups) deviceGroups.set(g.id, g.parent_id)
            for (const x2 of x.devices) deviceGroupOf.set(x2.id, x2.device_group_id)
          }
        }
        const userGroupNames = await d.identity.references.user_group.names([...groupIds], trx)
        const deviceGroupNames = new Map((await d.inventory.listGroups(trx)).map((g) => [g.id, g.name]))
        return { inputs, names: namesOf(userGroupIds, userGroupNames, deviceGroups, deviceGroupOf, deviceGroupNames) }
      },
      { isolation: 'repeatable read' },
    )
    const reaches = new Map<Protocol, { reach: EditReach; deployed: BatchEvaluator | null; pending: BatchEvaluator }>()
    for (const [protocol, x] of inputs) {
      const side = (i: PolicyInputs) => ({ inputs: i, evaluator: batchEvaluator(i, d, new Map(), shared, words) })
      const deployedSide = x.kept ? side(x.kept) : null
      const pendingSide = side(x.pending)
      reaches.set(protocol, { reach: editReach(deployedSide, pendingSide), deployed: deployedSide?.evaluator ?? null, pending: pendingSide.evaluator })
    }
    const only = (p: Protocol) => (reaches.get(p)?.reach.scan ? { only: reaches.get(p)!.reach.scan! } : {})

    // The logs (the long part, on the replica), TACACS+ then RADIUS within one cap.
    const scanStarted = Date.now()
    const tacacs = protocols.includes('tacacs') ? await d.logs.tacacsImpactRequests({ from, to: now, limit: b.maxRequests, signal: budget.signal, ...only('tacacs') }) : null
    const left = b.maxRequests - (tacacs?.items.length ?? 0)
    const radius = protocols.includes('radius') && left > 0 && !budget.signal.aborted ? await d.logs.radiusImpactRequests({ from, to: now, limit: left, signal: budget.signal, ...only('radius') }) : null
    const logScanMs = Date.now() - scanStarted
    let reached: 'max_requests' | 'time_budget' | null = budget.signal.aborted ? 'time_budget' : null
    if (!reached && (tacacs?.truncated || radius?.truncated || (protocols.includes('radius') && left <= 0))) reached = 'max_requests'

    // Refused users are kept by name (deployed-inputs.ts): the account id now of those the logs name, as the policy test reads it.
    const usernames = new Set<string>([...(radius?.items ?? []).map((r) => r.username.toLowerCase())])
    const sides = new Map<Protocol, Sides>()
    for (const [protocol, x] of inputs) {
      const refusedIds = new Map<string, string>()
      for (const r of [...x.pending.refused, ...(x.kept?.refused ?? [])]) {
        const key = r.username.toLowerCase()
        if (!usernames.has(key) || refusedIds.has(key)) continue
        const account = await d.identity.findUser({ username: r.username })
        if (account) refusedIds.set(key, account.id)
      }
      const r = reaches.get(protocol)!
      // The reach's evaluators know no refused account; anew only when the logs name one.
      const evaluator = (i: PolicyInputs): BatchEvaluator => batchEvaluator(i, d, refusedIds, shared, words)
      const again = refusedIds.size > 0
      sides.set(protocol, {
        deployed: x.kept ? (again ? evaluator(x.kept) : r.deployed) : null,
        pending: again ? evaluator(x.pending) : r.pending,
        deployedRelease: x.release,
        ...(words ? { nothingDeployed: words('aaa-policy:verdict.nothing_deployed') } : {}),
        reach: r.reach,
      })
    }

    const acc = new ImpactAccumulator({ changesLimit: b.changesLimit, groupLimit: b.groupLimit, unreplayableWords: 'aaa-policy:impact_unreplayable' })
    const evaluateStarted = Date.now()
    if (!(await replayAll(acc, sides, names, tacacs?.items ?? [], radius?.items ?? [], deadline))) reached = 'time_budget'
    const evaluateMs = Date.now() - evaluateStarted
    // The window's requests the scan did not ship: outside the reach, answered alike.
    if (!reached) for (const scan of [tacacs, radius]) if (scan?.window_events != null) acc.unaffected(scan.window_events - shipped(scan.items))

    const lags = [tacacs?.lag_ms, radius?.lag_ms].filter((x): x is number => typeof x === 'number')
    return {
      window: { from: from.toISOString(), to: now.toISOString(), days: b.days },
      compared: { deployed, pending: 'database' },
      ...acc.result(b.say),
      limits: { reached, max_requests: b.maxRequests, time_budget_seconds: b.timeBudgetSeconds },
      timing: { total_ms: Date.now() - started, log_scan_ms: logScanMs, evaluate_ms: evaluateMs },
      replica_lag_ms: lags.length ? Math.max(...lags) : null,
    }
  } finally {
    clearTimeout(timer)
  }
}

/** The real requests behind the shipped rows that `window_events` counts (RADIUS: device administration only). */
const shipped = (items: readonly (DistinctTacacsRequest | DistinctRadiusRequest)[]) => items.reduce((n, r) => n + ('nac_method' in r && r.nac_method !== null ? 0 : r.events), 0)

/**
 * Every request replayed on both sides into `acc`, yielding to the event loop every few thousand;
 * false when the deadline stopped it. NAC requests (802.1X, MAB) are the nac plugin's report.
 */
export async function replayAll(
  acc: ImpactAccumulator,
  sides: ReadonlyMap<Protocol, Sides>,
  names: ImpactNames,
  tacacs: readonly DistinctTacacsRequest[],
  radius: readonly DistinctRadiusRequest[],
  deadline: number,
): Promise<boolean> {
  let n = 0
  let inTime = true
  const step = async (): Promise<boolean> => {
    if (++n % YIELD_EVERY !== 0) return true
    if (Date.now() >= deadline) return (inTime = false)
    await new Promise((r) => setImmediate(r))
    return true
  }
  const replay = (s: Sides, r: Replayable | { unreplayable: UnreplayableReason }, logged: { username: string; nas_ip: string | null; events: number; permitted: number; last_seen: Date }) => {
    if (s.reach && !s.reach.all && !s.reach.reaches(logged.username, logged.nas_ip)) return acc.unaffected(logged.events)
    if ('unreplayable' in r) return acc.unreplayable(logged, r.unreplayable, UNREPLAYABLE[r.unreplayable])
    if (directoryUser(s, r.input.username)) return acc.unreplayable(logged, 'directory_user', UNREPLAYABLE.directory_user)
    const one = replayOne(s, names, r, { ...logged, method: r.input.method ?? null })
    if (!one) acc.unchanged(logged)
    else if (one.unreplayable) acc.unreplayable(logged, one.unreplayable, UNREPLAYABLE[one.unreplayable])
    else acc.add(one.request, one.before, one.after, one.link)
  }
  const t = sides.get('tacacs')
  if (t) for (const r of tacacs) if (await step()) replay(t, tacacsInput(r), r); else break
  const rs = sides.get('radius')
  if (rs && inTime) for (const r of radius) if (r.nac_method === null) if (await step()) replay(rs, radiusInput(r), r); else break
  return inTime
}

export function namesOf(
  userGroupIds: Map<string, string[]>,
  userGroupNames: Map<string, string>,
  parent: Map<string, string | null>,
  deviceGroupOf: Map<string, string | null>,
  deviceGroupNames: Map<string, string>,
): ImpactNames {
  // One array per user and per device, shared by their requests (a million requests, a few thousand users).
  const users = new Map<string, { id: string; name: string }[]>()
  const devices = new Map<string, { id: string; name: string }[]>()
  return {
    userGroups(userId) {
      let out = users.get(userId)
      if (!out) users.set(userId, (out = (userGroupIds.get(userId) ?? []).map((id) => ({ id, name: userGroupNames.get(id) ?? id }))))
      return out
    },
    deviceGroups(deviceId) {
      let out = devices.get(deviceId)
      if (!out) {
        out = []
        const seen = new Set<string>()
        for (let g = deviceGroupOf.get(deviceId) ?? null; g && !seen.has(g); g = parent.get(g) ?? null) {
          seen.add(g)
          out.push({ id: g, name: deviceGroupNames.get(g) ?? g })
        }
        devices.set(deviceId, out)
      }
      return out
    },
  }
}
