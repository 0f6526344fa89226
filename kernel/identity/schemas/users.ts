import { listQuery, Nullable, OptionalName, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { MAX_PASSWORD } from '../passwords.js'

/** Ids a user is given, directly or through a group; bounded so one request cannot fan out without limit. */
export const MAX_LINKS = 100

// Usernames are written into daemon configuration files: no spaces, quotes or other characters those files would need to escape.
const username = (description?: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._@-]+$', description })
const email = () => Type.Optional(Nullable(Type.String({ maxLength: 254, format: 'email', description: 'Address for password-reset mail. Blank is stored as null.' })))
const password = () =>
  Type.String({
    minLength: 1,
    maxLength: MAX_PASSWORD,
    writeOnly: true,
    description:
      'Write-only; never returned. Must meet the password policy (12 to 256 characters, not the username, not a common breached password). Setting it voids every older session of the user and, when `network_login` is on, derives the network verifiers; a network-login password must also work on a device: no NUL byte, at most 128 bytes in UTF-8 (RADIUS PAP carries 128 octets, TACACS+ 255; 422 PASSWORD_POLICY says how many over). Forbidden for `source: directory`.',
  })
const ids = (what: string) =>
  Type.Array(Uuid(), { uniqueItems: true, maxItems: MAX_LINKS, description: `Ids of the ${what}; the whole list is replaced when given. Unknown ids answer 422 naming the item.` })
const source = () => StringEnum(['local', 'directory'] as const, { description: '`local`: password kept here (argon2id). `directory`: authenticated elsewhere; no local password.', default: 'local' })

/**
 * The instant the account expires. FreeRADIUS keeps `Expiration` as 32-bit seconds since 1970, so the
 * year is 1970 to 2105; with a time zone, as every date-time here.
 */
const expiresAt = () =>
  Type.String({
    format: 'date-time',
    pattern: '^(?:19[7-9][0-9]|20[0-9][0-9]|210[0-5])-',
    description:
      'When the account expires (date-time with a time zone, year 1970 to 2105); null or absent: never. From that second on the daemons refuse the user\'s network logins (tac_plus-ng `valid until`, FreeRADIUS `Expiration`: enforced by the daemons themselves, no deploy needed once rendered; a change takes effect at the next deploy), the web sign-in answers 401 INVALID_CREDENTIALS (audited with reason `expired`) and the user\'s sessions stop working. tac_plus-ng checks it when a user logs in, not on the command authorizations of a session opened before. A past instant expires the account at once. The last enabled administrator without an expiry cannot be given one (409 LAST_ADMIN).',
  })

const fields = {
  username: username('Unique, case-insensitively. Letters, digits and `. _ @ -` only, as it lands in daemon configuration.'),
  // Shown in lists, the audit trail and the admin UI: one line, no control or direction characters.
  display_name: OptionalName({ maxLength: 128 }),
  email: email(),
  enabled: Type.Optional(Type.Boolean({ default: true, description: 'A disabled user cannot sign in, and disabling voids their sessions.' })),
  source: Type.Optional(source()),
  password: Type.Optional(password()),
  is_admin: Type.Optional(Type.Boolean({ default: false, description: 'Bypasses every permission check. Only an administrator may set or change it.' })),
  network_login: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Whether the TACACS+/RADIUS daemons accept this user. The daemons need verifiers derived from the password when it is set, and no cleartext is kept to derive them later: turning this on for a user who has a password but no verifiers needs the `password` in the same request (422 NETWORK_PASSWORD_REQUIRED); a user without a password gets them with the first one. A `source: directory` user has no local password: the daemons ask the directory instead (PAP, TACACS+ ASCII/PAP; docs/directory.md).',
    }),
  ),
  chap_enabled: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Allow RADIUS CHAP for this user: keeps the password reversibly encrypted (sealed with the master key) so that FreeRADIUS can check CHAP. Takes effect with `network_login`; turning it on for a network-login user who has a password needs the `password` in the same request (422 NETWORK_PASSWORD_REQUIRED). Turning it off discards the kept password at once.',
    }),
  ),
  must_change_password: Type.Optional(Type.Boolean({ default: false, description: 'The next sign-in must change the password before getting a session.' })),
  expires_at: Type.Optional(Nullable(expiresAt())),
  group_ids: Type.Optional(ids('user groups the user belongs to')),
  role_ids: Type.Optional(ids('roles given directly to the user')),
}

export const UserCreate = Type.Object(fields, { title: 'UserCreate', additionalProperties: false })

export const UserUpdate = Type.Object(
  { ...fields, username: Type.Optional(fields.username) },
  { title: 'UserUpdate', additionalProperties: false, description: 'Partial: only the fields given change. `group_ids` and `role_ids` replace the whole list.' },
)

export const UserResponse = Type.Object(
  {
    id: Uuid(),
    username: Type.String(),
    display_name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    enabled: Type.Boolean(),
    source: source(),
    is_admin: Type.Boolean(),
    network_login: Type.Boolean(),
    network_verifiers_set: Type.Boolean({ description: 'Whether the daemons hold verifiers for this user (network_login on and a password set since).' }),
    chap_enabled: Type.Boolean({
      description: 'Whether RADIUS CHAP is allowed: keeps the password reversibly encrypted (sealed with the master key) so that FreeRADIUS can check CHAP. The password itself is never returned.',
    }),
    must_change_password: Type.Boolean(),
    password_set: Type.Boolean({ description: 'Whether a local password is set; the hash itself is never returned.' }),
    password_changed_at: Nullable(Timestamp()),
    expires_at: Nullable(Timestamp({ description: 'When the account expires (see UserCreate); null: never.' })),
    lockout_cleared_at: Nullable(
      Timestamp({ description: 'When an administrator last cleared the lockout (POST /users/{user_id}/lockout/clear); FreeRADIUS forgets the failures it counted before it, from the next deploy.' }),
    ),
    group_ids: Type.Array(Uuid()),
    role_ids: Type.Array(Uuid()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'UserResponse', additionalProperties: false },
)

export const UserListResponse = Paginated(UserResponse, 'UserListResponse')

export const UserParams = Type.Object({ user_id: Uuid() }, { additionalProperties: false })

export const UserListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['username', 'display_name', 'email', 'created_at', 'updated_at'] as const,
  filters: {
    enabled: Type.Optional(Type.Boolean()),
    source: Type.Optional(StringEnum(['local', 'directory'] as const)),
    is_admin: Type.Optional(Type.Boolean()),
    group_id: Type.Optional(Uuid({ description: 'Members of this user group.' })),
    role_id: Type.Optional(Uuid({ description: 'Users holding this role, directly or through one of their groups.' })),
  },
})

export type UserCreate = Static<typeof UserCreate>
export type UserUpdate = Static<typeof UserUpdate>
export type UserResponse = Static<typeof UserResponse>
