/**
 * Counts, groups and ranks the outcome pairs of an impact replay (sdk/policy-impact.ts): one
 * `add` per distinct request, with its outcome under the deployed policy and under the pending one.
 * Memory stays bounded by the number of changed requests kept (`changesLimit`, pruned as it goes)
 * and the group rows, whatever the number of requests replayed.
 */
import type { Say } from './say.js'
import { hasPhrases, sayPhrases } from './phrase-text.js'
import { IMPACT_CHANGES, type ImpactChange, type ImpactChangeKind, type ImpactGroupRow, type ImpactOutcome, type ImpactRequest, type PolicyImpact } from './policy-impact.js'

type PolicyTestLink = ImpactChange['policy_test']
type Counted = Pick<PolicyImpact, 'requests' | 'summary' | 'groups' | 'changes' | 'changes_total'>

export interface ImpactAccumulatorOptions {
  changesLimit: number
  groupLimit: number
  /** Where the words of the unreplayable reasons are (`aaa-policy:impact_unreplayable`): `result(say)` says `<words>.<reason>`. */
  unreplayableWords?: string
}

const SEVERITY: Record<ImpactChangeKind, number> = Object.fromEntries(IMPACT_CHANGES.map((c, i) => [c, i])) as Record<ImpactChangeKind, number>

const attributeMap = (o: ImpactOutcome): Map<string, string> => {
  const m = new Map<string, string>()
  for (const a of o.attributes) m.set(a.name, m.has(a.name) ? `${m.get(a.name)}, ${a.value}` : a.value)
  return m
}

/** The attributes whose values differ (a name sent several times: its values in order, joined). */
export function changedAttributes(before: ImpactOutcome, after: ImpactOutcome): ImpactChange['changed_attributes'] {
  const b = attributeMap(before)
  const a = attributeMap(after)
  const out: ImpactChange['changed_attributes'] = []
  for (const name of new Set([...b.keys(), ...a.keys()])) if (b.get(name) !== a.get(name)) out.push({ name, before: b.get(name) ?? null, after: a.get(name) ?? null })
  return out
}

/** The most severe change between two outcomes, or null when the request is answered alike. */
export function changeOf(before: ImpactOutcome, after: ImpactOutcome): ImpactChangeKind | null {
  if (before.decision !== after.decision) return before.decision === 'permit' ? 'permit_to_deny' : 'deny_to_permit'
  // A deny carries no attributes to the NAS: which rule denies is a rule change only.
  if (before.decision === 'permit' && changedAttributes(before, after).length) return 'attributes'
  if ((before.rule?.id ?? null) !== (after.rule?.id ?? null) || (before.profile?.id ?? null) !== (after.profile?.id ?? null)) return 'rule'
  const bl = before.command_line
  const al = after.command_line
  if ((bl?.command_set?.id ?? null) !== (al?.command_set?.id ?? null) || (bl?.line ?? null) !== (al?.line ?? null)) return 'rule'
  return null
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

/**
 * The summary in one sentence, from its numbers. `say`: the caller's language (a route's `req.t`, with
 * i18next's plurals: kernel/locales impact-en.ts); without it, English as those words say it.
 */
export function impactSentence(s: Omit<PolicyImpact['summary'], 'text'>, say?: Say): string {
  if (say) {
    const n = (count: number) => ({ count, n: count.toLocaleString('en-US') })
    const parts: string[] = []
    if (s.users_losing_access) parts.push(say('core:impact.users_losing', { ...n(s.users_losing_access), devices: say('core:impact.devices', n(s.devices_losing_access)) }))
    if (s.deny_to_permit.requests) parts.push(say('core:impact.newly_permitted', n(s.deny_to_permit.events)))
    if (s.attributes.requests) parts.push(say('core:impact.other_attributes', n(s.attributes.events)))
    if (s.rules_newly_deciding) parts.push(say('core:impact.newly_deciding', { ...n(s.rules_newly_deciding), requests: say('core:impact.requests', n(s.requests_newly_decided.events)) }))
    return parts.length ? parts.join(say('core:impact.separator')) : say('core:impact.none')
  }
  const parts: string[] = []
  if (s.users_losing_access) parts.push(`${plural(s.users_losing_access, 'user loses', 'users lose')} access to ${plural(s.devices_losing_access, 'device', 'devices')}`)
  if (s.deny_to_permit.requests) parts.push(`${plural(s.deny_to_permit.events, 'request is', 'requests are')} newly permitted`)
  if (s.attributes.requests) parts.push(`${plural(s.attributes.events, 'request gets', 'requests get')} other attributes`)
  if (s.rules_newly_deciding) parts.push(`${plural(s.rules_newly_deciding, 'rule now decides', 'rules now decide')} ${plural(s.requests_newly_decided.events, 'request', 'requests')} ${s.rules_newly_deciding === 1 ? 'it' : 'they'} did not`)
  return parts.length ? parts.join('; ') : 'No replayed request is answered differently'
}

/** The outcome with its reason in the reader's words (a reason without phrases stays as it is); outcomes may be shared, so a copy. */
const saidReason = (o: ImpactOutcome, say: Say): ImpactOutcome => (hasPhrases(o.reason) ? { ...o, reason: sayPhrases(o.reason, say) } : o)

interface Kept {
  change: ImpactChange
  severity: number
  key: string
}

const requestKey = (r: ImpactRequest) => [r.kind, r.username, r.mac, r.device?.id ?? r.nas_ip, r.method, r.service, r.command, r.priv_lvl].join('\u0000')

export class ImpactAccumulator {
  private readonly counts = { distinct: 0, events: 0, evaluated: 0, unchanged: 0 }
  private readonly unreplayableBy = new Map<string, { reason: string; description: string; requests: number; events: number }>()
  private readonly byChange = Object.fromEntries(IMPACT_CHANGES.map((c) => [c, { requests: 0, events: 0 }])) as Record<ImpactChangeKind, { requests: number; events: number }>
  private readonly losingUsers = new Set<string>()
  private readonly losingDevices = new Set<string>()
  private readonly newlyDeciding = new Set<string>()
  private readonly newlyDecided = { requests: 0, events: 0 }
  private readonly groups = { users: new Map<string, ImpactGroupRow>(), user_groups: new Map<string, ImpactGroupRow>(), devices: new Map<string, ImpactGroupRow>(), device_groups: new Map<string, ImpactGroupRow>(), rules: new Map<string, ImpactGroupRow>() }
  private kept: Kept[] = []
  private total = 0
  private unaffectedEvents = 0

  constructor(private readonly o: ImpactAccumulatorOptions) {}

  /** A request that cannot be replayed (`reason`: a short code; `description`: what it means, in words). */
  unreplayable(request: Pick<ImpactRequest, 'events'>, reason: string, description: string): void {
    this.counts.distinct++
    this.counts.events += request.events
    const r = this.unreplayableBy.get(reason) ?? { reason, description, requests: 0, events: 0 }
    r.requests++
    r.events += request.events
    this.unreplayableBy.set(reason, r)
  }

  /**
   * A replayed request its caller found answered alike on both sides (what `add` counts for one
   * whose change is null), without building its request and outcomes: a million unchanged requests
   * are most of a report.
   */
  unchanged(request: Pick<ImpactRequest, 'events'>): void {
    this.counts.distinct++
    this.counts.events += request.events
    this.counts.evaluated++
    this.counts.unchanged++
  }

  /** Real requests outside the edit's reach: answered alike by proof, not replayed (see `requests.unaffected`). */
  unaffected(events: number): void {
    this.unaffectedEvents += events
  }

  /**
   * One replayed request and its two outcomes. `policyTest` is called only for a change that is
   * kept, so a large replay builds no request bodies it does not show. Returns the change, or null.
   */
  add(request: ImpactRequest, before: ImpactOutcome, after: ImpactOutcome, policyTest: () => PolicyTestLink): ImpactChangeKind | null {
    this.counts.distinct++
    this.counts.events += request.events
    this.counts.evaluated++
    const change = changeOf(before, after)
    if (!change) {
      this.counts.unchanged++
      return null
    }
    const c = this.byChange[change]
    c.requests++
    c.events += request.events
    const who = request.username ?? request.mac ?? ''
    const where = request.device?.id ?? request.nas_ip ?? ''
    if (change === 'permit_to_deny') {
      this.losingUsers.add(who)
      this.losingDevices.add(where)
    }
    if (after.rule && after.rule.id !== before.rule?.id) {
      this.newlyDeciding.add(after.rule.id)
      this.newlyDecided.requests++
      this.newlyDecided.events += request.events
    }
    const bump = (map: Map<string, ImpactGroupRow>, id: string | null, name: string) => {
      const k = id ?? `\u0000${name}`
      let row = map.get(k)
      if (!row) map.set(k, (row = { id, name, permit_to_deny: 0, deny_to_permit: 0, attributes: 0, rule: 0, events: 0 }))
      row[change]++
      row.events += request.events
    }
    bump(this.groups.users, null, who)
    for (const g of request.user_groups) bump(this.groups.user_groups, g.id, g.name)
    bump(this.groups.devices, request.device?.id ?? null, request.device?.name ?? request.nas_ip ?? '')
    for (const g of request.device_groups) bump(this.groups.device_groups, g.id, g.name)
    const rule = after.rule ?? before.rule
    if (rule) bump(this.groups.rules, rule.id, rule.name)

    this.total++
    if (this.o.changesLimit > 0) {
      this.kept.push({ change: { request, change, before, after, changed_attributes: changedAttributes(before, after), policy_test: policyTest() }, severity: SEVERITY[change], key: requestKey(request) })
      if (this.kept.length >= 2 * this.o.changesLimit) this.prune()
    }
    return change
  }

  private prune(): void {
    this.kept.sort((a, b) => a.severity - b.severity || b.change.request.events - a.change.request.events || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    this.kept.length = Math.min(this.kept.length, this.o.changesLimit)
  }

  /**
   * `say`: the summary sentence and the changes' reasons in the caller's language (impactSentence;
   * reasons replayed with `PHRASE_SAY` are said here, sdk/phrase-text.ts); English without.
   */
  result(say?: Say): Counted {
    this.prune()
    const top = (m: Map<string, ImpactGroupRow>) =>
      [...m.values()].sort((a, b) => b.events - a.events || b.permit_to_deny - a.permit_to_deny || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, this.o.groupLimit)
    const words = this.o.unreplayableWords
    const unreplayable = [...this.unreplayableBy.values()]
      .sort((a, b) => b.events - a.events || (a.reason < b.reason ? -1 : 1))
      .map((r) => (say && words ? { ...r, description: say(`${words}.${r.reason}`) } : r))
    const summary = {
      ...this.byChange,
      users_losing_access: this.losingUsers.size,
      devices_losing_access: this.losingDevices.size,
      rules_newly_deciding: this.newlyDeciding.size,
      requests_newly_decided: { ...this.newlyDecided },
    }
    return {
      requests: {
        ...this.counts,
        unaffected: { events: this.unaffectedEvents },
        unreplayable: { requests: unreplayable.reduce((n, r) => n + r.requests, 0), events: unreplayable.reduce((n, r) => n + r.events, 0), by_reason: unreplayable },
      },
      summary: { ...summary, text: impactSentence(summary, say) },
      groups: { users: top(this.groups.users), user_groups: top(this.groups.user_groups), devices: top(this.groups.devices), device_groups: top(this.groups.device_groups), rules: top(this.groups.rules) },
      changes: this.kept.map((k) => (say ? { ...k.change, before: saidReason(k.change.before, say), after: saidReason(k.change.after, say) } : k.change)),
      changes_total: this.total,
    }
  }
}
