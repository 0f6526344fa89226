/**
 * The lines FreeRADIUS 3.2 writes for the platform's ingester: their format and the linelog
 * module that writes them (the RADIUS renderer). Their parser, for the aaa-logs ingester, is
 * freeradius-parse.ts.
 *
 * One JSON object per line, written by `linelog` with the `json` module's
 * `%{json_encode:…}` xlat (output mode `object_simple`) over an EXPLICIT list of
 * attributes: logging whole lists breaks JSON on EAP-TLS and writes passwords
 * and MSK keys. Daily files in the log directory, named by the request time:
 * `radius-auth-YYYY-MM-DD.jsonl` (post-auth, accept and reject) and
 * `radius-acct-YYYY-MM-DD.jsonl` (accounting).
 *
 * Line layout (version 1; fields added since are optional to the parser):
 *   {"v":1,"kind":"auth","ts":"<%l epoch s>","us":"<%M µs>","src":"<source address>",
 *    "client":"<client shortname>","result":"accept"|"reject",
 *    "request":{…},"control":{…},"profiling":{…},"sensor":["<hex>",…],"replies":[{"name":…,"type":…,"value":…},…]}
 *   {"v":1,"kind":"acct","ts":"<%l>","us":"<%M>","src":…,"client":…,"request":{…},"profiling":{…},"sensor":[…]}
 * `src` and `client` are the client FreeRADIUS verified (the packet's source and
 * the clients.conf entry whose secret checked it), `request` holds
 * `REQUEST_ATTRIBUTES[kind]` (what the NAS claims), `control` the attributes the
 * policy sets (`CONTROL_ATTRIBUTES`: the rule, its label, the reject reason),
 * `replies` every reply attribute in packet order but `REPLY_NOT_LOGGED`
 * (older lines: `reply`, an object of `REPLY_ATTRIBUTES`; the parser reads both), `profiling`
 * and `sensor` what NAC profiling reads (PROFILING_ATTRIBUTES, below; absent in older lines).
 *
 * Escaping: values holding `"` come out of linelog escaped twice (`a"b` as
 * `a\\\"b`). The parser undoes a second layer (`\"` → `"`, `\\` → `\`) inside
 * values after JSON decoding, and when the line is not valid JSON it retries
 * once with a layer of escapes removed from the whole line. It never throws:
 * a line it cannot read comes back as a `FreeradiusParseError` with a reason.
 *
 * Checked against FreeRADIUS 3.2.1 (Debian) running `freeradiusLogModules()`:
 * `freeradius -C` accepts it; PAP/MS-CHAP accepts, rejects and accounting
 * produce lines like those in plugins/aaa-logs/test/ingest-parse.test.ts
 * (`CORP\bob` arrives as `CORP\\\\bob`, `a"b` as `a\\\"b`; Auth-Type is `PAP`,
 * `CHAP` or `mschap`; `%M` is the microseconds of the request time).
 *
 * 802.1X and MAB (plugins/radius/renderers/nac-*.ts) write the same auth lines, with EAP-Type,
 * NAS-Port-Type, NAS-Port-Id and Service-Type in `request`, Portcullis-NAC-Method and -User in
 * `control` (the tree's own dictionary defines them), the NAC rule and its authorization profile in
 * the rule fields, and the VLAN and ACL given among the replies; the keys EAP derives are left out.
 */

export const FREERADIUS_LOG_FORMAT_VERSION = 1

export type FreeradiusLogKind = 'auth' | 'acct'

/** The control attributes the RADIUS renderer's policy sets, read back by the ingester. */
export const CONTROL_ATTRIBUTES = {
  /** How the password was checked: FreeRADIUS sets it (PAP, CHAP, MS-CHAP, eap …). */
  authType: 'Auth-Type',
  /** The name of the policy rule that decided (set by the renderer with `update control`). */
  ruleName: 'Tmp-String-0',
  /** The label of that rule. */
  ruleLabel: 'Tmp-String-1',
  /** Why a request was rejected (one of `RADIUS_REJECT_REASONS`), set by the renderer at each reject point. */
  rejectReason: 'Tmp-String-2',
  /**
   * 802.1X and MAB (plugins/radius/renderers/nac-*.ts): `peap`, `eap-tls` or `mab`; absent on device
   * administration. A tree's own dictionary defines it. With it, `ruleName` is the NAC rule that
   * decided and `ruleLabel` its authorization profile.
   */
  nacMethod: 'Portcullis-NAC-Method',
  /** 802.1X: the authenticated user (PEAP inner identity, EAP-TLS certificate Common-Name). */
  nacUser: 'Portcullis-NAC-User',
} as const

/**
 * Why an Access-Request was rejected, as the log row's `reject_reason` names it. The renderer sets
 * control:Tmp-String-2 at each reject point of the tree; `wrong_password` and `no_credentials` are
 * set in Post-Auth-Type REJECT when nothing earlier named a reason (the password check failed, or the
 * request carried nothing FreeRADIUS checks: no User-Password, CHAP-Password or MS-CHAP response).
 */
export const RADIUS_REJECT_REASONS = [
  'unknown_user',
  'disabled',
  'network_login_off',
  'no_network_password',
  'chap_not_kept',
  'no_policy',
  'no_rule',
  'no_radius_profile',
  'mschapv1_refused',
  'expired',
  'locked_out',
  'wrong_password',
  'no_credentials',
  // Directory users (plugins/radius/renderers/directory.ts).
  'directory_unavailable',
  'directory_user_not_found',
  'directory_pap_only',
  'directory_not_configured',
  // The second factor on the device (radius.mfa_mode): none given where needed, wrong or replayed, too many, the platform not answering.
  'mfa_required',
  'mfa_bad_code',
  'mfa_rate_limited',
  'mfa_unavailable',
  // A password method that never asked for the second factor while it is on (renderers/mfa.ts post-auth).
  'mfa_not_checked',
  // A push to the user's phone (renderers/mfa.ts): not approved (denied, wrong number, reported,
  // cancelled), nobody answered within mfa.push_timeout_seconds, the push service down or no device,
  // pushes locked for the user by a "report".
  'mfa_push_denied',
  'mfa_push_timeout',
  'mfa_push_unavailable',
  'mfa_push_locked',
  // 802.1X and MAB (plugins/radius/renderers/nac-*.ts): the NAC rule that decided denies; an EAP
  // request reached a tree without the eap module (no server certificate set); the EAP exchange
  // failed (wrong inner password, a certificate refused: revoked, foreign CA, expired).
  'nac_denied',
  'eap_not_configured',
  'eap_failed',
] as const
export type RadiusRejectReason = (typeof RADIUS_REJECT_REASONS)[number]

export const REQUEST_ATTRIBUTES = {
  auth: [
    'User-Name',
    'NAS-IP-Address',
    'Packet-Src-IP-Address',
    'Calling-Station-Id',
    'Called-Station-Id',
    'NAS-Port',
    'NAS-Identifier',
    'Module-Failure-Message',
    // 802.1X and MAB: the EAP method of the last round, the port's kind and name, MAB's Call-Check.
    'EAP-Type',
    'NAS-Port-Type',
    'NAS-Port-Id',
    'Service-Type',
  ],
  acct: [
    'User-Name',
    'NAS-IP-Address',
    'Packet-Src-IP-Address',
    'Calling-Station-Id',
    'Called-Station-Id',
    'NAS-Port',
    'NAS-Identifier',
    'Acct-Status-Type',
    'Acct-Session-Id',
    'Framed-IP-Address',
    'Acct-Session-Time',
    'Acct-Input-Octets',
    'Acct-Output-Octets',
    'Acct-Input-Gigawords',
    'Acct-Output-Gigawords',
  ],
} as const

/**
 * What NAC profiling and sessions read (plugins/nac, through the aaa-logs record listener), in both
 * kinds of line, kept together here: the port as the switch names it and its type, in a field of
 * their own (`"profiling":{…}`, a separate xlat, so that a cut there never costs the request
 * attributes), and Cisco's device-sensor AVPairs (`dhcp-option=…`, `cdp-tlv=…`, `lldp-tlv=…`,
 * `http-tlv=…`) in `"sensor":[…]`: each instance of Cisco-AVPair as the hex of its bytes
 * (`%{hex:&request:Cisco-AVPair[i]}`, one xlat each, up to SENSOR_AVPAIRS of them). Hex because the
 * TLVs carry binary type and length bytes: `json_encode` stops at the first NUL and takes only the
 * first instance (checked against FreeRADIUS 3.2.1), hex is binary-safe and needs no escaping.
 */
export const PROFILING_ATTRIBUTES = ['NAS-Port-Id', 'NAS-Port-Type'] as const
/** How many Cisco-AVPair instances a line carries (a switch's device sensor sends a handful). */
export const SENSOR_AVPAIRS = 16

/** The reply attributes logged by lines written before every reply attribute was (the parser still reads them). */
export const REPLY_ATTRIBUTES = ['Tunnel-Type', 'Tunnel-Medium-Type', 'Tunnel-Private-Group-Id', 'Filter-Id', 'Session-Timeout', 'Framed-IP-Address', 'Reply-Message'] as const

/**
 * What an accept's line leaves out of the reply list: Message-Authenticator (a placeholder until the
 * packet is signed), and proofs and keys of the password check, never what a profile grants.
 */
export const REPLY_NOT_LOGGED = [
  'Message-Authenticator',
  'MS-CHAP2-Success',
  'MS-CHAP-Error',
  'MS-MPPE-Send-Key',
  'MS-MPPE-Recv-Key',
  'MS-MPPE-Encryption-Policy',
  'MS-MPPE-Encryption-Types',
  'EAP-Message',
  'State',
  // 802.1X: the keys EAP derives (internal attributes FreeRADIUS keeps in the reply list).
  'EAP-MSK',
  'EAP-EMSK',
  'EAP-Session-Id',
] as const

/** File name patterns (FreeRADIUS xlat, expanded with the request time) inside the log directory. */
export const FREERADIUS_FILE_PATTERNS: Record<FreeradiusLogKind, string> = {
  auth: 'radius-auth-%Y-%m-%d.jsonl',
  acct: 'radius-acct-%Y-%m-%d.jsonl',
}

/** The kind a file of the log directory holds, from its name, or null. */
export function freeradiusFileKind(fileName: string): FreeradiusLogKind | null {
  const m = /^radius-(auth|acct)-.*\.jsonl$/.exec(fileName)
  return m ? (m[1] as FreeradiusLogKind) : null
}

const enc = (list: string, names: readonly string[]) => '%{json_encode:' + names.map((n) => `&${list}:${n}`).join(' ') + '}'

/**
 * The packet's source address, expanded directly: Packet-Src-IP-Address is a
 * virtual attribute, which `json_encode` over `&request:` never emits, so
 * without this a request lacking NAS-IP-Address had no NAS address at all.
 */
const SRC = '%{%{Packet-Src-IP-Address}:-%{Packet-Src-IPv6-Address}}'

/**
 * The client (clients.conf) whose secret verified the packet: the device's name, as the renderer
 * writes it in `shortname`. Unlike NAS-Identifier, the NAS cannot choose it.
 */
const CLIENT = '%{client:shortname}'

/**
 * Every reply attribute, in packet order, as `[{"name":…,"type":…,"value":…}, …]` (the second json
 * instance, output mode `array`: one element per attribute, repeated ones each in its place).
 */
const REPLY_LIST = '%{portcullis_list_encode:&reply:[*] ' + REPLY_NOT_LOGGED.map((n) => `!&reply:${n}`).join(' ') + '}'

/** The profiling field (PROFILING_ATTRIBUTES, its own xlat) and the sensor list (hex of each Cisco-AVPair; an absent one is ""). */
const PROFILING = `${enc('request', PROFILING_ATTRIBUTES)},"sensor":[${Array.from({ length: SENSOR_AVPAIRS }, (_, i) => `"%{hex:&request:Cisco-AVPair[${i}]}"`).join(',')}]`

/** The line templates (linelog `messages` values, before quoting for the config file). */
export const FREERADIUS_LINE_TEMPLATES = {
  accept: `{"v":1,"kind":"auth","ts":"%l","us":"%M","src":"${SRC}","client":"${CLIENT}","result":"accept","request":${enc('request', REQUEST_ATTRIBUTES.auth)},"control":${enc('control', Object.values(CONTROL_ATTRIBUTES))},"profiling":${PROFILING},"replies":${REPLY_LIST}}`,
  reject: `{"v":1,"kind":"auth","ts":"%l","us":"%M","src":"${SRC}","client":"${CLIENT}","result":"reject","request":${enc('request', REQUEST_ATTRIBUTES.auth)},"control":${enc('control', Object.values(CONTROL_ATTRIBUTES))},"profiling":${PROFILING},"replies":[]}`,
  acct: `{"v":1,"kind":"acct","ts":"%l","us":"%M","src":"${SRC}","client":"${CLIENT}","request":${enc('request', REQUEST_ATTRIBUTES.acct)},"profiling":${PROFILING}}`,
} as const

const q = (s: string) => '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"'

/**
 * The `json` and `linelog` module definitions for `mods-enabled/` (call
 * `portcullis_log_auth` in post-auth and in `Post-Auth-Type REJECT`, and
 * `portcullis_log_acct` in accounting).
 */
export function freeradiusLogModules(logDirectory: string): string {
  return `json {
	encode {
		output_mode = object_simple
		value {
			single_value_as_array = no
			always_string = yes
		}
	}
}

json portcullis_list {
	encode {
		output_mode = array
		value {
			single_value_as_array = no
			always_string = yes
		}
	}
}

linelog portcullis_log_auth {
	filename = ${q(`${logDirectory}/${FREERADIUS_FILE_PATTERNS.auth}`)}
	escape_filenames = no
	permissions = 0640
	format = ""
	reference = "messages.%{%{reply:Packet-Type}:-default}"
	messages {
		Access-Accept = ${q(FREERADIUS_LINE_TEMPLATES.accept)}
		Access-Reject = ${q(FREERADIUS_LINE_TEMPLATES.reject)}
		default = ${q(FREERADIUS_LINE_TEMPLATES.reject)}
	}
}

linelog portcullis_log_acct {
	filename = ${q(`${logDirectory}/${FREERADIUS_FILE_PATTERNS.acct}`)}
	escape_filenames = no
	permissions = 0640
	format = ${q(FREERADIUS_LINE_TEMPLATES.acct)}
}
`
}
