/**
 * The NAC plugin's contract with other plugins: endpoints (MAC addresses) and
 * endpoint groups. The NAC policy's renderer (MAB allow-lists are endpoint
 * groups), the profiler and the accounting ingester come later and reach the
 * implementation through `nacServiceRef`, never the tables.
 */
import type { Knex } from 'knex'
import { createServiceRef, type CompiledNacPolicy, type NacRequest, type ReferenceTarget } from '../../sdk/index.js'
import type { NacEvaluation } from './services/evaluate.js'

export type { NacEvaluation, NacTraceStep } from './services/evaluate.js'

export type AuthResult = 'accept' | 'reject'

/** An endpoint: a device on the network, known by its MAC address. */
export interface Endpoint {
  id: string
  /** Canonical: lower-case, colon-separated (`aa:bb:cc:dd:ee:ff`). */
  mac: string
  /** The U/L bit: a randomized or virtual address, to which no vendor OUI applies. */
  locally_administered: boolean
  /** From the IEEE registry, by the MAC's OUI (MA-L, MA-M or MA-S); null when unassigned, private or locally administered. */
  vendor: string | null
  description: string | null
  owner_user_id: string | null
  endpoint_group_id: string | null
  first_seen_at: string | null
  last_seen_at: string | null
  last_nas_ip: string | null
  /** NAS-Port-Id (or NAS-Port) as the switch sent it. */
  last_nas_port: string | null
  last_auth_result: AuthResult | null
  /** From profiling: what the endpoint is, how sure (0–100) and why. Null until profiled. */
  device_type: string | null
  device_type_confidence: number | null
  device_type_reason: string | null
  created_at: string
  updated_at: string
}

export interface EndpointGroup {
  id: string
  name: string
  description: string | null
  /** Placement rules: profiled endpoints of these device types join the group (static membership wins). */
  placement_device_types: string[]
  created_at: string
  updated_at: string
}

/** What the network saw of an endpoint: one authentication or accounting record. */
export interface EndpointSighting {
  /** Any accepted notation (a Calling-Station-Id as the switch wrote it). */
  mac: string
  /** Default: now. */
  at?: Date
  nas_ip?: string | null
  nas_port?: string | null
  result?: AuthResult | null
}

/** What profiling concluded. `device_type: null` clears it. */
export interface DeviceTypeVerdict {
  device_type: string | null
  /** 0–100. */
  confidence: number | null
  reason: string | null
}

type Db = Knex | Knex.Transaction

/** What decides an endpoint's authorization that changed: its device type or its group. */
export interface EndpointAuthorizationState {
  device_type: string | null
  endpoint_group_id: string | null
}

/**
 * An endpoint whose device type or group changed, after the change committed: what a Change of
 * Authorization (RFC 5176) acts on. `cause`: `profiling` (a rule's verdict, a group's placement
 * rule), `admin` (the API: the endpoint's group or device type set, an import).
 */
export interface EndpointAuthorizationChange {
  endpoint_id: string
  mac: string
  cause: 'profiling' | 'admin'
  before: EndpointAuthorizationState
  after: EndpointAuthorizationState
  /** Where the endpoint was last seen: the NAS to send the CoA to, and its port. */
  last_nas_ip: string | null
  last_nas_port: string | null
}

/**
 * Called with the changes of one commit (a batch of ingested records, one API request). Errors are
 * logged, never retried: keep it quick (queue the CoA work) and idempotent.
 */
export type EndpointAuthorizationListener = (changes: readonly EndpointAuthorizationChange[]) => Promise<void> | void

/** What the captive portal registers: the endpoint (created when new), the group it is put in, its owner. */
export interface EndpointRegistration {
  /** Any accepted notation. */
  mac: string
  endpoint_group_id: string
  /** Absent: the owner stays as it is; null clears it. */
  owner_user_id?: string | null
  /** Absent: the description stays as it is; null clears it. */
  description?: string | null
}

/**
 * The session parameters a NAS's web redirection carried to the portal (docs/nac.md "Captive
 * portal redirection"). `signed`: the `sig` FreeRADIUS added matched, so mac, NAS and SSID are the
 * ones the daemon saw; false: no `sig` was given (an Aruba role redirect), nothing vouches for them.
 */
export interface PortalRedirect {
  /** Canonical (`aa:bb:cc:dd:ee:ff`). */
  mac: string
  nas_ip: string | null
  ssid: string | null
  signed: boolean
}

export interface NacService {
  /** The canonical form of a MAC in any accepted notation; null when it is none, or a group or all-zero address. */
  normalizeMac(text: string): string | null
  /** The IEEE-registered vendor of a MAC (any notation); null when unknown or locally administered. */
  vendorOf(mac: string): string | null
  getEndpoint(id: string, db?: Db): Promise<Endpoint | null>
  /** The endpoint with this MAC, in any notation; null when none (or not a MAC). */
  findEndpointByMac(mac: string, db?: Db): Promise<Endpoint | null>
  /** The endpoints of a group, ordered by MAC (a renderer passes its snapshot). */
  listEndpointsInGroup(groupId: string, db?: Db): Promise<Endpoint[]>
  /**
   * Every grouped endpoint's MAC with its group id, ordered by group then MAC: one statement for
   * all groups (a MAB allow-list renderer), instead of `listEndpointsInGroup` once per group.
   */
  groupMembership(db?: Db): Promise<{ mac: string; endpoint_group_id: string }[]>
  getGroup(id: string, db?: Db): Promise<EndpointGroup | null>
  /** Every group, ordered by name. */
  listGroups(db?: Db): Promise<EndpointGroup[]>
  /**
   * Records a sighting (for the ingester): creates the endpoint when the MAC is new (first seen
   * now), else moves last seen and the NAS, port and result given. Not audited: telemetry, like
   * the log rows it comes from. Throws the API's 422 for a MAC that is not an endpoint's.
   */
  recordSighting(s: EndpointSighting, db?: Db): Promise<Endpoint>
  /** Profiling's verdict for an endpoint (null when there is no such endpoint). The caller audits, when it is a person's act. */
  setDeviceType(endpointId: string, v: DeviceTypeVerdict, db?: Db): Promise<Endpoint | null>
  /**
   * Adds a listener of endpoint authorization changes (device type or group changed by profiling or
   * an admin); returns its removal. The CoA sender subscribes here.
   */
  onEndpointAuthorizationChanged(listener: EndpointAuthorizationListener): () => void
  /**
   * Endpoints and endpoint groups as other plugins reference them (sdk/references.ts): the NAC
   * policy names endpoint groups (MAB allow-lists) through `endpoint_group`; a `restrict` guard's
   * reference makes a group's delete answer 409 GROUP_IN_USE naming it. Nobody else touches the
   * plugin's tables.
   */
  references: { endpoint: ReferenceTarget; endpoint_group: ReferenceTarget }
  /**
   * The captive portal's registration: creates the endpoint when its MAC is new, else updates it;
   * puts it in the group (static membership, as the API's endpoint update) and sets the owner and
   * description given. After the commit (of `db`, when it is a transaction: once it commits), an
   * endpoint whose group changed goes to the authorization-change listeners (cause `admin`); no
   * CoA is sent by this call (the caller sends the one it wants). Not audited: the caller audits.
   * Throws the API's 422 for a malformed MAC or an unknown group or owner.
   */
  registerEndpoint(r: EndpointRegistration, db?: Db): Promise<Endpoint>
  /**
   * Takes the endpoint out of `fromGroupId` if it is still in it (a group changed since is left
   * alone), the owner kept; the change goes to the listeners as registerEndpoint's. Null when there
   * is no such endpoint; the endpoint unchanged when it is no longer in that group.
   */
  releaseEndpoint(endpointId: string, fromGroupId: string, db?: Db): Promise<Endpoint | null>
  /**
   * Checks the session parameters of a portal redirection (a query: `mac`, `nas`, `ssid`, `sig`).
   * Null when `mac` is not a MAC or `sig` is present and wrong (compared in constant time); without
   * `sig`: `signed: false`.
   */
  verifyPortalRedirect(q: Record<string, string | undefined>): Promise<PortalRedirect | null>
  /** The NAC policy compiled from the tables (sdk/nac-policy.ts), as the FreeRADIUS renderer gets it; pass your snapshot. */
  compilePolicy(db?: Db): Promise<CompiledNacPolicy>
  /** Pure: what the compiled policy decides for a request, with the trace (the policy test's evaluation; a differential test's oracle). */
  evaluatePolicy(compiled: CompiledNacPolicy, request: NacRequest): NacEvaluation
}

export const nacServiceRef = createServiceRef<NacService>({ id: 'nac.service' })

// ---- Change of Authorization (RFC 5176): services/coa/, docs/nac.md "Change of Authorization" ----

/** What a CoA asks of the NAS: re-run authorization, end the session, or bounce the switch port. */
export type CoaAction = 'reauthenticate' | 'disconnect' | 'bounce-port'

/** Why it was sent: an administrator asked, or something the authorization depends on changed. */
export type CoaReason = 'admin' | 'group_change' | 'device_type_change' | 'profile_change' | 'policy_change' | 'user_access_ended'

/**
 * `pending` until the NAS answers; `ack` / `nak` (with `error_cause`) as it answered; `timeout` after
 * every retry went unanswered; `bad_response` when the only answers failed the response
 * authenticator (a wrong shared secret, or a forgery); `error` when nothing could be sent (no NAS
 * known for the endpoint, no inventory device or secret for it), with `error_detail`.
 */
export type CoaResult = 'pending' | 'ack' | 'nak' | 'timeout' | 'bad_response' | 'error'

/** One CoA or Disconnect request as recorded in `nac_coa_requests`. */
export interface CoaRequestRecord {
  id: string
  endpoint_id: string | null
  /** The endpoint's MAC when it was sent (the record outlives the endpoint). */
  mac: string
  action: CoaAction
  reason: CoaReason
  /** The inventory device answering for the NAS address, its name when sent; null when none. */
  device_id: string | null
  device_name: string | null
  nas_ip: string | null
  /** The UDP port the request went to. */
  nas_port: number | null
  /** `cisco` (Cisco-AVPair subscriber commands) or `rfc5176` (Service-Type Authorize-Only; bounce as a Disconnect). */
  dialect: 'cisco' | 'rfc5176' | null
  /** The RADIUS code sent: 40 Disconnect-Request, 43 CoA-Request. */
  packet_code: number | null
  /** The user who asked; null for an automatic CoA. */
  requested_by: string | null
  requested_by_username: string | null
  result: CoaResult
  /** RFC 5176 Error-Cause of a NAK (or an ACK that carries one). */
  error_cause: number | null
  error_detail: string | null
  /** Transmissions made (1 + retries used). */
  attempts: number
  sent_at: string | null
  answered_at: string | null
  created_at: string
}

/** Who asks, and what the NAS knows of the session beyond the endpoint's MAC (sessions from accounting, when known). */
export interface CoaRequestOptions {
  reason: CoaReason
  requestedBy?: { id: string; username: string } | null
  /** Acct-Session-Id of the live session, when the caller knows it (the sessions view). */
  acctSessionId?: string | null
  /** NAS-Port-Id; default: the endpoint's `last_nas_port`. */
  nasPortId?: string | null
}

export interface NacCoaService {
  /**
   * Sends one request to the NAS that last saw the endpoint and waits for its answer (timeout and
   * retries from the settings), recording it in `nac_coa_requests` from the start (`pending`).
   * Throws the API's 404 for no such endpoint and 409 (COA_NO_NAS, COA_NAS_UNKNOWN,
   * COA_NAS_NO_SECRET) when there is no NAS to ask; nothing is recorded then.
   */
  send(endpointId: string, action: CoaAction, o: CoaRequestOptions): Promise<CoaRequestRecord>
  /**
   * Tells the NAC that the authorization of these endpoints may have changed (their group, their
   * device type from profiling, their profile). Call it after your transaction commits: it never
   * throws and never waits. Per the setting `nac.coa_on_change` (`off` | `reauthenticate`), each
   * endpoint a NAS has seen gets a reauthenticate CoA in the background, its result recorded; an
   * endpoint no NAS has seen is skipped (it has no session), one whose NAS is not in the inventory
   * or has no secret is recorded as `error`.
   */
  authorizationChanged(endpointIds: readonly string[], reason: Exclude<CoaReason, 'admin' | 'user_access_ended'>): void
  /** Resolves when every background CoA started so far is recorded (tests, shutdown). */
  idle(): Promise<void>
}

export const nacCoaServiceRef = createServiceRef<NacCoaService>({ id: 'nac.coa' })
