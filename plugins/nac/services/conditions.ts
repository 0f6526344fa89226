/**
 * A NAC rule's conditions: what the API takes (one flat object a condition,
 * its `type` saying which fields it has), what the table keeps (ids, not
 * names), and the compiled form of sdk/nac-policy.ts (names resolved for the
 * trace and the rendered comments).
 *
 * A rule holds when every condition holds; a condition listing several values
 * holds when any of them does. One condition of each type at most: two of one
 * type would be an AND within a type, which no NAC product offers and which
 * reads as an OR; list the values in one condition instead.
 */
import type { Knex } from 'knex'
import { asciiLower, certificateValuePhrase, phrase, type Phrase, DAYS, timeWindowProblem, toPolicyWindow, uuidsOf, type Day, type NacCondition, type NacMethod, type ReferenceTarget, type StoredTimeWindow } from '../../../sdk/index.js'
import { nacReferenceNotFound, NacErrors, valueError, type NacRefKind } from '../errors.js'
import { valueProblem } from './values.js'

export const NAC_METHODS = ['peap', 'eap-tls', 'mab'] as const satisfies readonly NacMethod[]
export const CONDITION_TYPES = ['method', 'user_group', 'endpoint_group', 'device_type', 'device_group', 'certificate', 'nas_port_type', 'time_window'] as const
export type ConditionType = (typeof CONDITION_TYPES)[number]
// No certificate template: FreeRADIUS 3.2 exposes no certificate policy OID, so a rule on it could not be enforced by the daemon.
export const CERTIFICATE_FIELDS = ['issuer_cn', 'san_email', 'san_dns'] as const
export type CertificateField = (typeof CERTIFICATE_FIELDS)[number]

/** NAS-Port-Type as the FreeRADIUS dictionary (dictionary.rfc2865, rfc4603) names the values a switch or controller sends. */
export const NAS_PORT_TYPES = [
  'Async', 'Sync', 'ISDN', 'ISDN-V120', 'ISDN-V110', 'Virtual', 'PIAFS', 'HDLC-Clear-Channel', 'X.25', 'X.75', 'G.3-Fax', 'SDSL', 'ADSL-CAP', 'ADSL-DMT', 'IDSL',
  'Ethernet', 'xDSL', 'Cable', 'Wireless-Other', 'Wireless-802.11', 'Token-Ring', 'FDDI', 'Wireless-CDMA2000', 'Wireless-UMTS', 'Wireless-1X-EV', 'IAPP',
  'FTTP', 'Wireless-802.16', 'Wireless-802.20', 'Wireless-802.22', 'PPPoA', 'PPPoEoA', 'PPPoEoE', 'PPPoEoVLAN', 'PPPoEoQinQ', 'xPON', 'Wireless-XGP',
] as const

export type GroupKind = 'user_group' | 'endpoint_group' | 'device_group'
export const GROUP_KINDS: readonly GroupKind[] = ['user_group', 'endpoint_group', 'device_group']

/** What the table keeps, one object a condition. */
export type StoredCondition =
  | { type: 'method'; methods: NacMethod[] }
  | { type: GroupKind; group_ids: string[] }
  | { type: 'device_type'; device_types: string[] }
  | { type: 'certificate'; field: CertificateField; values: string[] }
  | { type: 'nas_port_type'; values: string[] }
  | ({ type: 'time_window' } & StoredTimeWindow)

/** A condition as the API takes it (schemas/policy.ts): the type and the fields of that type. */
export interface ConditionInput {
  type: ConditionType
  methods?: NacMethod[]
  group_ids?: string[]
  device_types?: string[]
  field?: CertificateField
  values?: string[]
  days?: Day[]
  start?: string
  end?: string
}

/** The fields each type takes (all of them required). */
const FIELDS: Record<ConditionType, readonly (keyof ConditionInput)[]> = {
  method: ['methods'],
  user_group: ['group_ids'],
  endpoint_group: ['group_ids'],
  device_group: ['group_ids'],
  device_type: ['device_types'],
  certificate: ['field', 'values'],
  nas_port_type: ['values'],
  time_window: ['days', 'start', 'end'],
}

const KEYS: readonly (keyof ConditionInput)[] = ['methods', 'group_ids', 'device_types', 'field', 'values', 'days', 'start', 'end']

/** `reason`: a phrase of the catalogue (`condition_reason`, the caller's language), or the SDK's English check's words. */
const invalid = (field: string, reason: string | Phrase) => NacErrors.conditionInvalid({ field, vars: { reason } })
const why = (key: string, vars: Record<string, unknown>) => phrase(`nac:condition_reason.${key}`, vars)

/** Distinct values, first spelling kept; `fold` compares them case-insensitively. */
const distinct = (values: readonly string[], fold = false) => {
  const seen = new Set<string>()
  return values.filter((v) => {
    const k = fold ? v.toLowerCase() : v
    return seen.has(k) ? false : (seen.add(k), true)
  })
}

/** Distinct certificate values, first spelling kept, compared as the tree compares them (ASCII letters caseless). */
const distinctFolded = (values: readonly string[]) => {
  const seen = new Set<string>()
  return values.filter((v) => (seen.has(asciiLower(v)) ? false : (seen.add(asciiLower(v)), true)))
}

function safeTexts(values: readonly string[], at: string): string[] {
  values.forEach((v, j) => {
    const why = valueProblem(v)
    if (why) throw valueError(why, `${at}[${j}]`)
  })
  return values.map((v) => v)
}

/** One condition checked and normalized, or 422 at `conditions[i].<field>` naming what is wrong. */
function storedCondition(c: ConditionInput, at: string): StoredCondition {
  const wanted = FIELDS[c.type]
  for (const k of KEYS) {
    if (c[k] === undefined && wanted.includes(k)) throw invalid(`${at}.${k}`, why('needs', { type: c.type, fields: wanted.join(', ') }))
    if (c[k] !== undefined && !wanted.includes(k)) throw invalid(`${at}.${k}`, why('takes_only', { type: c.type, fields: wanted.join(', ') }))
  }
  switch (c.type) {
    case 'method':
      return { type: 'method', methods: NAC_METHODS.filter((m) => c.methods!.includes(m)) }
    case 'user_group':
    case 'endpoint_group':
    case 'device_group':
      return { type: c.type, group_ids: distinct(c.group_ids!.map((id) => id.toLowerCase())) }
    case 'device_type':
      return { type: 'device_type', device_types: distinct(safeTexts(c.device_types!, `${at}.device_types`)) }
    case 'certificate': {
      // The renderer's own rule (sdk certificateValueProblem): what passes here always renders.
      c.values!.forEach((v, j) => {
        const problem = certificateValuePhrase(v)
        if (problem) throw invalid(`${at}.values[${j}]`, problem)
      })
      // Compared ASCII-caseless (sdk/nac-policy.ts): `Corp CA` and `corp ca` are one value.
      return { type: 'certificate', field: c.field!, values: distinctFolded(c.values!) }
    }
    case 'nas_port_type': {
      const bad = c.values!.findIndex((v) => !(NAS_PORT_TYPES as readonly string[]).includes(v))
      if (bad >= 0) throw invalid(`${at}.values[${bad}]`, why('nas_port_type', { value: JSON.stringify(c.values![bad]), examples: NAS_PORT_TYPES.slice(15, 20).join(', ') }))
      return { type: 'nas_port_type', values: distinct(c.values!) }
    }
    case 'time_window': {
      const w: StoredTimeWindow = { days: DAYS.filter((d) => c.days!.includes(d)), start: c.start!, end: c.end! }
      const problem = timeWindowProblem(w, at)
      if (problem) throw invalid(problem.field, problem.reason)
      return { type: 'time_window', ...w }
    }
  }
}

/** The conditions as stored, checked (422 at `conditions[i]…`); at most one of each type. */
export function storedConditions(list: readonly ConditionInput[]): StoredCondition[] {
  const seen = new Map<ConditionType, number>()
  return list.map((c, i) => {
    const first = seen.get(c.type)
    if (first !== undefined) throw invalid(`conditions[${i}].type`, why('duplicate', { first: `conditions[${first}]`, type: c.type }))
    seen.set(c.type, i)
    return storedCondition(c, `conditions[${i}]`)
  })
}

/** The referenced ids of each group kind, for the table's arrays. */
export function referencedIds(list: readonly StoredCondition[]): Record<`${GroupKind}_ids`, string[]> {
  const of = (k: GroupKind) => list.flatMap((c) => (c.type === k ? c.group_ids : []))
  return { user_group_ids: of('user_group'), endpoint_group_ids: of('endpoint_group'), device_group_ids: of('device_group') }
}

/** Who owns each group kind (sdk/references.ts); device groups are null in an edition without the inventory. */
export type ConditionTargets = Record<'user_group' | 'endpoint_group', ReferenceTarget> & { device_group: ReferenceTarget | null }

/**
 * 422 REFERENCE_NOT_FOUND at `conditions[i].group_ids[j]` for the first id that names nothing; the
 * others stay locked by their owner (FOR KEY SHARE) until the rule's transaction ends.
 */
export async function lockConditionRefs(trx: Knex.Transaction, targets: ConditionTargets, list: readonly StoredCondition[]): Promise<void> {
  for (const [i, c] of list.entries()) {
    if (c.type !== 'user_group' && c.type !== 'endpoint_group' && c.type !== 'device_group') continue
    const target = targets[c.type]
    if (!target) throw nacReferenceNotFound(c.type as NacRefKind, `conditions[${i}].group_ids`, c.group_ids[0], true)
    const found = await target.lockExisting(c.group_ids, trx)
    const j = c.group_ids.findIndex((id) => !found.has(id))
    if (j >= 0) throw nacReferenceNotFound(c.type, `conditions[${i}].group_ids[${j}]`, c.group_ids[j])
  }
}

/** Names of every group the conditions of `rules` name, by kind then id: one query a kind. */
export async function groupNames(db: Knex | Knex.Transaction, targets: ConditionTargets, lists: readonly (readonly StoredCondition[])[]): Promise<Record<GroupKind, Map<string, string>>> {
  const out = {} as Record<GroupKind, Map<string, string>>
  for (const k of GROUP_KINDS) {
    const ids = uuidsOf(lists.flatMap((l) => l.flatMap((c) => (c.type === k ? c.group_ids : []))))
    const target = targets[k]
    out[k] = ids.length && target ? await target.names(ids, db) : new Map()
  }
  return out
}

/** The compiled condition (sdk/nac-policy.ts); a group whose name cannot be read shows its id. */
export function compileCondition(c: StoredCondition, names: Record<GroupKind, Map<string, string>>): NacCondition {
  switch (c.type) {
    case 'user_group':
    case 'endpoint_group':
    case 'device_group':
      return { type: c.type, groups: c.group_ids.map((id) => ({ id, name: names[c.type].get(id) ?? id })) }
    case 'time_window':
      return { type: 'time_window', window: toPolicyWindow(c) }
    default:
      return c
  }
}

/** A condition as the API answers it: as stored, plus the groups' names and the window's label. */
export function presentCondition(c: StoredCondition, names: Record<GroupKind, Map<string, string>>) {
  if (c.type === 'user_group' || c.type === 'endpoint_group' || c.type === 'device_group') {
    return { ...c, groups: c.group_ids.map((id) => ({ id, name: names[c.type].get(id) ?? null })) }
  }
  if (c.type === 'time_window') return { ...c, label: toPolicyWindow(c).label }
  return c
}
