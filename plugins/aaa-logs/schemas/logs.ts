import { EXPORT_FORMATS, listQuery, Nullable, Paginated, StringEnum, Timestamp, Type, Uuid, type TSchema } from '../../../sdk/index.js'
import type { KindDef } from '../services/logs.js'
import { listSettingRefs } from '../services/settings.js'
import { COUNT_CAP } from '../services/totals.js'

const str = (description?: string) => Nullable(Type.String(description ? { description } : {}))
const int = (description?: string) => Nullable(Type.Integer(description ? { description } : {}))

const COMMON: Record<string, TSchema> = {
  id: Uuid(),
  timestamp: Timestamp({ description: 'When the daemon logged the event (UTC).' }),
  username: Type.String(),
  nas_ip: Nullable(
    Type.String({
      description:
        'The device (NAS) address the request came from, as the daemon verified it: the TACACS+ connection\'s peer, or the RADIUS packet\'s source address (the client whose secret checked the packet, whatever NAS-IP-Address the NAS claims; see `nas_ip_address`). RADIUS rows ingested before this was logged hold NAS-IP-Address.',
    }),
  ),
  node_id: Uuid({ description: 'The cluster node that processed (ingested) the event.' }),
  device_name: str('The device the daemon matched by address and key or secret: its inventory name (RADIUS: the client in clients.conf, not the NAS-Identifier the NAS sends). Null when not logged.'),
  client_address: str('Where the user connects from, as the NAS reports it (TACACS+ rem_addr, RADIUS Calling-Station-Id).'),
  session_id: str(),
}
const TRAILING: Record<string, TSchema> = {
  source_file: Type.String({ description: 'Raw line reference: the daemon log file the event was read from.' }),
  source_offset: Type.Integer({ minimum: 0, description: 'Raw line reference: byte offset of the line in source_file.' }),
  ingested_at: Timestamp(),
}

const FIELD: Record<string, TSchema> = {
  status: Type.String(),
  action: Type.String(),
  acct_status_type: Type.String(),
  rule_name: str(),
  rule_label: str(),
  profile: str(),
  authen_type: str(),
  auth_type: str(),
  port: str(),
  message: str('What tac_plus-ng says of the outcome (its hint): `succeeded`, `failed` (the password did not check out), `failed (no such user)`, `failed (expired)`, `failed (password not set)`, `failed (no clear text password set)`, `denied by ACL` …'),
  result_code: str(
    'tac_plus-ng\'s own code for the outcome (its msgid), the reject reason where the daemon gives one: authentication `AUTHC-PASS`, `AUTHC-FAIL` (wrong password), `AUTHC-FAIL-NOUSER` (not in the rendered configuration: unknown, disabled or network login off, which the daemon cannot tell apart), `AUTHC-FAIL-EXPIRED`, `AUTHC-FAIL-NOPASS`, `AUTHC-FAIL-PASSWORD-NOT-TEXT` (CHAP without a kept password), `AUTHC-FAIL-ACL`, `AUTHC-FAIL-DENY` …; authorization `AUTHZ-PASS`, `AUTHZ-PASS-ADD`, `AUTHZ-FAIL` …. Null on rows ingested before it was kept.',
  ),
  service: str(),
  priv_lvl: int(),
  command: str(),
  arguments: Type.Array(Type.String()),
  reply_arguments: Type.Array(Type.String()),
  calling_station_id: str(),
  called_station_id: str(),
  nas_port: str(),
  nas_identifier: str('NAS-Identifier as the NAS claims it.'),
  nas_ip_address: str('NAS-IP-Address as the NAS claims it: any NAS with a secret may put any address here; `nas_ip` is where the packet came from.'),
  reply_attributes: Type.Array(Type.Unknown(), {
    description:
      'Accepts: every attribute of the Access-Accept in packet order, `{name, value}` (repeated attributes each in place), but Message-Authenticator and the proofs and keys of the password check (MS-CHAP2-Success, MS-MPPE keys, EAP-Message, State). Rejects: empty (a reject carries nothing of a profile).',
  }),
  reply_attributes_truncated: Type.Boolean({
    description:
      'true when `reply_attributes` holds only the first attributes of the reply: FreeRADIUS 3.2 writes at most 2,047 bytes of the list (about 1.5 KB of attribute values), so a larger reply is logged cut; the packet itself was whole.',
  }),
  reason: str('Why a reject happened, in words: FreeRADIUS\'s Module-Failure-Message (the platform\'s own sentence at each reject point, or the module\'s).'),
  acct_session_id: str(),
  framed_ip: str(),
  session_time: int(),
  input_octets: int('Octets from the user: Acct-Input-Octets + Acct-Input-Gigawords × 2^32 (a 64-bit count past 4 GiB). Null when absent or past 2^63 − 1.'),
  output_octets: int('Octets to the user: Acct-Output-Octets + Acct-Output-Gigawords × 2^32. Null when absent or past 2^63 − 1.'),
}

/** What the enum columns mean (their values are the schema's enum). */
const ENUM_DESCRIPTION: Record<string, string> = {
  auth_type: 'How the password was checked (RADIUS): detected from the request before anything else runs, so rejects carry it too; for 802.1X and MAB (the nac plugin) PEAP, EAP-TLS or MAB; null when the request held none of these.',
  reject_reason:
    'Why a RADIUS reject happened (null on accepts): `unknown_user` (no such user), `disabled` (user disabled), `network_login_off` (the user may not log in to devices), `no_network_password` (network login on, but no password set since), `chap_not_kept` (CHAP for a user without chap_enabled: no cleartext password is kept), `no_policy` (no AAA policy loaded), `no_rule` (no rule matched, or only the default rule, which grants no RADIUS profile), `no_radius_profile` (the matching rule grants no RADIUS profile, e.g. a TACACS+-only rule), `mschapv1_refused` (MS-CHAPv1 and the rule\'s profile does not allow it), `expired` (the account\'s expiry has passed), `locked_out` (too many wrong passwords in a row, identity.lockout_threshold), `wrong_password` (the password, CHAP or MS-CHAP response did not check out), `no_credentials` (nothing to check); for directory users (docs/directory.md): `directory_unavailable` (the directory could not be reached, or refused the lookup account), `directory_user_not_found` (no entry, or more than one, with that name), `directory_pap_only` (CHAP or MS-CHAP for a directory user), `directory_not_configured` (directory.url is null). Null too on rows ingested before this was logged.',
}

/** Enum columns that may be null: RADIUS `auth_type` when no PAP/CHAP/MS-CHAP response was sent (EAP, nothing), `reject_reason` on accepts. */
const NULLABLE_ENUMS = new Set(['auth_type', 'reject_reason'])

export function entrySchema(k: KindDef, list: boolean) {
  const props: Record<string, TSchema> = { ...COMMON }
  for (const c of k.columns) {
    const e = k.enumFilters[c]
    const en = e && StringEnum(e, ENUM_DESCRIPTION[c] ? { description: ENUM_DESCRIPTION[c] } : {})
    props[c] = en ? (NULLABLE_ENUMS.has(c) ? Nullable(en) : en) : FIELD[c]
  }
  Object.assign(props, TRAILING)
  return Type.Object(props, { title: `${k.schemaStem}Log${list ? 'List' : ''}Response`, additionalProperties: false })
}

/**
 * The contract's paginated envelope plus `total_by_filter_capped`: a log list
 * counts at most COUNT_CAP entries for the filters its rollup cannot answer
 * (free-text search, or two of the dimension filters together).
 */
export function listSchema(k: KindDef) {
  const page = Paginated(entrySchema(k, true), `${k.schemaStem}LogPage`)
  const cap = COUNT_CAP.toLocaleString('en')
  return Type.Object(
    {
      ...page.properties,
      total_by_filter: Type.Integer({
        minimum: 0,
        description: `Entries matching the filters and search: exact, unless \`total_by_filter_capped\` is true; then a lower bound.`,
      }),
      total_by_filter_capped: Type.Boolean({
        description: `true when counting stopped before the end, for a free-text \`search\` or two of \`username\`, \`nas_ip\`, \`node_id\` and the kind's text filters together: at ${cap} matches, or on PostgreSQL after the setting \`aaa-logs.count_budget_ms\` (default ${listSettingRefs.countBudgetMs.default} ms). \`total_by_filter\` is then a lower bound (${cap} when the cap stopped it; at least the entries up to the end of a full page): show it as "${cap}+" or "at least N"; \`pages\` follows it, and a full page means more may follow. false: \`total_by_filter\` is exact.`,
      }),
      pages: Type.Integer({ minimum: 0, description: 'ceil(total_by_filter / per_page): a lower bound too when total_by_filter_capped is true.' }),
      replica_lag_ms: Nullable(
        Type.Integer({
          minimum: 0,
          description:
            'How stale this answer may be: it was read on the hot standby of DATABASE_READ_URL, whose data was this many milliseconds behind the primary when the read began (0: it had replayed everything the primary had written; measured to within about a second). null: read on the primary (no read replica, the embedded engine, or the replica more than DATABASE_READ_MAX_LAG_MS behind or unreachable), so the answer is current.',
        }),
      ),
    },
    { title: `${k.schemaStem}LogPage`, additionalProperties: false },
  )
}

function filters(k: KindDef) {
  const own: Record<string, TSchema> = {}
  for (const [name, values] of Object.entries(k.enumFilters)) own[name] = Type.Optional(StringEnum(values))
  for (const name of k.textFilters) own[name] = Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Exact value.' }))
  return {
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Exact user name.' })),
    nas_ip: Type.Optional(Type.String({ minLength: 2, maxLength: 45, description: 'Exact device address (IPv4 or IPv6).' })),
    node_id: Type.Optional(Uuid({ description: 'The cluster node that processed the events.' })),
    date_from: Type.Optional(Timestamp({ description: 'Entries at or after this instant.' })),
    date_to: Type.Optional(Timestamp({ description: 'Entries at or before this instant.' })),
    ...own,
  }
}

export const logListQuery = (k: KindDef) =>
  listQuery({ maxPerPage: 200, defaultPerPage: 50, sortBy: k.sortBy, defaultSortOrder: 'desc', filters: filters(k) })

/** The list's filters, plus `format`; `page`/`per_page` optional and without defaults (omitted: the whole filtered set up to the ceiling). */
export function logExportQuery(k: KindDef) {
  const base = logListQuery(k)
  return Type.Object(
    {
      ...base.properties,
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
      per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
      format: Type.Optional(StringEnum(EXPORT_FORMATS, { default: 'xlsx' })),
    },
    { additionalProperties: false },
  )
}

export const LogParams = Type.Object({ log_id: Uuid() }, { additionalProperties: false })
