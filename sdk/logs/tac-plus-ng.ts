/**
 * The lines tac_plus-ng writes for the platform's ingester, and their parser.
 * Shared by the tacacs renderer (writes the format) and the aaa-logs ingester (reads it).
 *
 * One line per event, fields separated by TAB, in daily files under the log
 * directory (`authentication-YYYY-MM-DD.log`, `authorization-…`, `accounting-…`,
 * the date in the daemon's local time zone), written synchronously (`>` files).
 *
 * Why TAB and not JSON: tac_plus-ng escapes every value it writes into a log
 * line (utils.c `ememcpy`): a backslash is doubled and every byte that is not
 * printable ASCII or part of valid UTF-8 is written as `\ooo` (three octal
 * digits). A TAB or a newline inside a value therefore arrives as `\011` or
 * `\012`, never raw, while a `"` passes through unescaped (which would break
 * a JSON-shaped line). So a raw TAB always separates fields and a raw newline
 * always ends the line; `unescapeField` restores the value.
 *
 * Line layout (version 1): the timestamp (RFC 5424 form,
 * `2026-11-21T06:34:11.184829+00:00`), the record kind, then the fields of
 * that kind in the order of `LOG_FIELDS`. Empty values are empty fields.
 * Lists of AV pairs (`args`, `rargs`) are joined with the byte 0x1f, which the
 * daemon writes as `\037` and `unescapeField` turns back into 0x1f.
 */

export type TacacsLogKind = 'authentication' | 'authorization' | 'accounting'

/** Field name → the tac_plus-ng log variable that fills it. */
const COMMON = {
  msgid: 'msgid',
  user: 'user',
  device: 'device',
  device_address: 'device.address',
  device_port: 'device.port',
  client_address: 'client.address',
} as const

export const LOG_FIELDS = {
  authentication: {
    ...COMMON,
    rule: 'rule',
    profile: 'profile',
    result: 'result',
    authen_type: 'authen-type',
    authen_service: 'authen-service',
    authen_action: 'authen-action',
    hint: 'hint',
    session_id: 'session.id',
  },
  authorization: {
    ...COMMON,
    rule: 'rule',
    profile: 'profile',
    result: 'result',
    service: 'service',
    priv_lvl: 'priv-lvl',
    cmd: 'cmd',
    args: 'args,\x1f',
    rargs: 'rargs,\x1f',
    hint: 'hint',
    session_id: 'session.id',
  },
  accounting: {
    ...COMMON,
    acct_type: 'accttype',
    service: 'service',
    priv_lvl: 'priv-lvl',
    cmd: 'cmd',
    args: 'args,\x1f',
    hint: 'hint',
    session_id: 'session.id',
  },
} as const

export const LOG_FORMAT_VERSION = 1
export const LOG_KINDS: TacacsLogKind[] = ['authentication', 'authorization', 'accounting']

/** The file name pattern (strftime) of one kind, inside the log directory. */
export const logFilePattern = (kind: TacacsLogKind): string => `${kind}-%Y-%m-%d.log`

/** The file a kind writes to on a given day (local time of the daemon). */
export function logFileName(kind: TacacsLogKind, day: Date): string {
  const p = (n: number) => String(n).padStart(2, '0')
  return `${kind}-${day.getFullYear()}-${p(day.getMonth() + 1)}-${p(day.getDate())}.log`
}

/**
 * The format of one kind, as tac_plus-ng should read it (real TAB and 0x1f
 * bytes; `tacString(…, { variables: true })` writes them as octal escapes).
 */
export function logFormatValue(kind: TacacsLogKind): string {
  return [kind, ...Object.values(LOG_FIELDS[kind]).map((v) => '${' + v + '}')].join('\t')
}

export type TacacsLogRecord =
  | ({ kind: 'authentication'; timestamp: string } & Record<keyof (typeof LOG_FIELDS)['authentication'], string>)
  | ({ kind: 'authorization'; timestamp: string } & Record<keyof (typeof LOG_FIELDS)['authorization'], string>)
  | ({ kind: 'accounting'; timestamp: string } & Record<keyof (typeof LOG_FIELDS)['accounting'], string>)

/** Undo the daemon's escapes: `\\` → `\`, `\ooo` → that byte; the bytes are read as UTF-8. */
export function unescapeField(raw: string): string {
  if (!raw.includes('\\')) return raw
  const bytes: number[] = []
  const src = Buffer.from(raw, 'utf8')
  for (let i = 0; i < src.length; i++) {
    const c = src[i]
    if (c === 0x5c && src[i + 1] === 0x5c) {
      bytes.push(0x5c)
      i++
    } else if (c === 0x5c && isOctal(src[i + 1]) && isOctal(src[i + 2]) && isOctal(src[i + 3])) {
      bytes.push(((src[i + 1] - 0x30) << 6) | ((src[i + 2] - 0x30) << 3) | (src[i + 3] - 0x30))
      i += 3
    } else bytes.push(c)
  }
  return Buffer.from(bytes).toString('utf8')
}

const isOctal = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x37

/**
 * One log line (without its newline) → a record, or null when the line is not
 * of this format (a torn last line, a line of another writer). Never throws.
 */
export function parseLogLine(line: string): TacacsLogRecord | null {
  const parts = line.replace(/\r?\n$/, '').split('\t')
  if (parts.length < 2) return null
  const [timestamp, kind, ...rest] = parts
  if (kind !== 'authentication' && kind !== 'authorization' && kind !== 'accounting') return null
  const names = Object.keys(LOG_FIELDS[kind])
  if (rest.length !== names.length) return null
  const rec: Record<string, string> = { kind, timestamp }
  names.forEach((n, i) => (rec[n] = unescapeField(rest[i])))
  return rec as TacacsLogRecord
}

/** Split a list field (`args`, `rargs`) into its AV pairs. */
export const splitList = (field: string): string[] => (field === '' ? [] : field.split('\x1f'))

/** The kind a file of the log directory holds, from its name (`authentication-2026-11-21.log` → authentication), or null. */
export function logFileKind(fileName: string): TacacsLogKind | null {
  const m = /^(authentication|authorization|accounting)-.*\.log$/.exec(fileName)
  return m ? (m[1] as TacacsLogKind) : null
}

export type TacacsParseResult = { ok: true; record: TacacsLogRecord } | { ok: false; reason: string }

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/
const FIELD_NAMES = {
  authentication: Object.keys(LOG_FIELDS.authentication),
  authorization: Object.keys(LOG_FIELDS.authorization),
  accounting: Object.keys(LOG_FIELDS.accounting),
}

/**
 * As `parseLogLine`, with the reason a line is refused (for the ingester's
 * quarantine), and a strict timestamp (RFC 3339, as the daemon writes it). Never throws.
 */
export function parseLogLineDetailed(line: string): TacacsParseResult {
  const parts = (line.endsWith('\n') ? line.replace(/\r?\n$/, '') : line).split('\t')
  if (parts.length < 2) return { ok: false, reason: 'not a tac_plus-ng log line (no TAB-separated fields)' }
  const kind = parts[1]
  if (kind !== 'authentication' && kind !== 'authorization' && kind !== 'accounting') return { ok: false, reason: `unknown record kind "${kind.slice(0, 40)}"` }
  const names = FIELD_NAMES[kind]
  if (parts.length !== names.length + 2) return { ok: false, reason: `${kind} line has ${parts.length} fields, expected ${names.length + 2} (truncated or a template broken by a value)` }
  if (!RFC3339.test(parts[0]) || Number.isNaN(Date.parse(parts[0]))) return { ok: false, reason: `bad timestamp "${parts[0].slice(0, 40)}"` }
  const rec: Record<string, string> = { kind, timestamp: parts[0] }
  for (let i = 0; i < names.length; i++) rec[names[i]] = unescapeField(parts[i + 2])
  return { ok: true, record: rec as TacacsLogRecord }
}
