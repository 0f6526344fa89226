/** Authorization profiles: what an accepted endpoint gets, or a deny (docs/nac.md "Authorization profiles"). */
import { listQuery, Nullable, OptionalText, Paginated, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { ConfigName } from './common.js'

const SAFE = 'No quotes, backslashes, control characters, `%`, `${`, `$ENV{` or braces (422 VALIDATION_FAILED at the field): the value goes into the FreeRADIUS configuration.'

const text = (max: number, d: string) => Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: max, description: `${d} ${SAFE} \`null\`: none.` })))

const fields = {
  name: ConfigName('Unique, case-insensitively (409 AUTHORIZATION_PROFILE_NAME_TAKEN). Letters, digits and `. _ -`, starting with a letter or digit.'),
  description: OptionalText({ maxLength: 500 }),
  deny: Type.Optional(Type.Boolean({ description: 'Access-Reject instead of an accept. A deny profile gives no attributes: setting any with it answers 422 at that field. Default false.' })),
  vlan: Type.Optional(
    Nullable(
      Type.Union([Type.Integer(), Type.String({ minLength: 1, maxLength: 32 })], {
        description:
          'The VLAN the endpoint is put in: an id 1–4094 (number or decimal text) or a VLAN name the switch knows (a letter, then letters, digits and `. _ -`, at most 32). Sent as Tunnel-Type = VLAN, Tunnel-Medium-Type = IEEE-802, Tunnel-Private-Group-Id. Out of range or malformed: 422 VLAN_INVALID. Returned as text.',
      }),
    ),
  ),
  acl: text(253, 'A named ACL (Filter-Id) the switch applies.'),
  cisco_acl: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      maxItems: 50,
      description: `Lines of a per-session ACL for Cisco switches, in order: each is sent as Cisco-AVPair \`ip:inacl#N=<line>\` (N from 1). ${SAFE} Empty: none.`,
    }),
  ),
  cisco_url_redirect: text(240, 'Cisco web redirection (Cisco-AVPair `url-redirect=<url>`): an http or https URL. Needs `cisco_url_redirect_acl`.'),
  cisco_url_redirect_acl: text(64, 'The ACL naming the traffic Cisco redirects (Cisco-AVPair `url-redirect-acl=<name>`).'),
  portal_redirect: Type.Optional(
    Type.Boolean({
      description:
        'Captive portal redirection: FreeRADIUS appends the session\'s parameters to `cisco_url_redirect` at each request, signed: `?mac=<MAC>&nas=<NAS-IP-Address>&ssid=<Called-Station-Id>&sig=<HMAC>` (`&` instead of `?` when the URL has a query). The portal checks `sig` with the platform key (setting `nac.portal_redirect_key`, made at random when the first such profile is saved), so a guest cannot register another device by editing the URL. Needs `cisco_url_redirect` (422 VALIDATION_FAILED at `portal_redirect` otherwise) of at most 100 characters (the parameters must fit in the attribute\'s 247 bytes; 422 at `cisco_url_redirect`). Default false.',
    }),
  ),
  aruba_user_role: text(64, 'The Aruba user role (Aruba-User-Role).'),
  session_timeout: Type.Optional(Nullable(Type.Integer({ minimum: 60, maximum: 31_536_000, description: 'Session-Timeout in seconds (60 to a year); `null`: none.' }))),
  reauthenticate: Type.Optional(
    Type.Boolean({ description: 'When the session times out the switch re-authenticates instead of ending it (Termination-Action = RADIUS-Request). Needs `session_timeout` (422 otherwise). Default false.' }),
  ),
}

export const AuthorizationProfileCreate = Type.Object(fields, { title: 'AuthorizationProfileCreate', additionalProperties: false })

export const AuthorizationProfileUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { title: 'AuthorizationProfileUpdate', additionalProperties: false, description: 'Partial: only the fields given change; the result is checked as a whole.' },
)

export const NacReplyAttribute = Type.Object(
  {
    attribute: Type.String({ description: 'FreeRADIUS dictionary name.' }),
    value: Type.String(),
    portal_session: Type.Optional(Type.Boolean({ description: 'Present (true) on the url-redirect of a `portal_redirect` profile: FreeRADIUS appends the session\'s signed parameters to `value` at request time.' })),
  },
  { title: 'NacReplyAttribute', additionalProperties: false },
)

export const AuthorizationProfileResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    deny: Type.Boolean(),
    vlan: Nullable(Type.String()),
    acl: Nullable(Type.String()),
    cisco_acl: Type.Array(Type.String()),
    cisco_url_redirect: Nullable(Type.String()),
    cisco_url_redirect_acl: Nullable(Type.String()),
    portal_redirect: Type.Boolean(),
    aruba_user_role: Nullable(Type.String()),
    session_timeout: Nullable(Type.Integer()),
    reauthenticate: Type.Boolean(),
    reply: Type.Array(NacReplyAttribute, { description: 'The reply attributes the profile gives, in the order FreeRADIUS sends them; empty for a deny.' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'AuthorizationProfileResponse', additionalProperties: false },
)

export const AuthorizationProfileListResponse = Paginated(AuthorizationProfileResponse, 'AuthorizationProfileListResponse')

export const AuthorizationProfileParams = Type.Object({ profile_id: Uuid() }, { additionalProperties: false })

export const AuthorizationProfileListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['name', 'created_at', 'updated_at'] as const,
  filters: { deny: Type.Optional(Type.Boolean({ description: 'Only deny profiles (`true`) or only accepting ones (`false`).' })) },
})

export type AuthorizationProfileCreate = Static<typeof AuthorizationProfileCreate>
export type AuthorizationProfileUpdate = Static<typeof AuthorizationProfileUpdate>
