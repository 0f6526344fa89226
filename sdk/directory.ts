/**
 * The directory (LDAP, or Active Directory over LDAP) that users with `source: directory` sign in
 * against: the settings every part reads (the API's sign-in in the kernel, the daemons' renderers),
 * and the escaping every LDAP filter and DN built from a user name goes through. docs/directory.md.
 */
import type { Knex } from 'knex'
import type { IdentityService } from './identity.js'
import { Nullable, Type } from './schema.js'
import { defineSetting, type SettingsService } from './services.js'

/** An LDAP attribute name (RFC 4512 descr): a letter, then letters, digits and hyphens. */
const ATTRIBUTE = '^[A-Za-z][A-Za-z0-9-]{0,63}$'

export const directorySettingRefs = {
  url: defineSetting(
    'directory.url',
    Nullable(Type.String({ maxLength: 255, pattern: '^ldaps?://[A-Za-z0-9.:\\[\\]-]+(:[0-9]{1,5})?/?$' })),
    null,
    'The directory server, ldap://host[:port] or ldaps://host[:port] (Active Directory: a domain controller). Null: no directory, and users with source directory sign in nowhere.',
    { security: true },
  ),
  startTls: defineSetting('directory.start_tls', Type.Boolean(), false, 'Upgrade an ldap:// connection with StartTLS before binding (the certificate is checked).', { security: true }),
  caCertificate: defineSetting(
    'directory.ca_certificate',
    Nullable(Type.String({ maxLength: 65536, pattern: '^-----BEGIN CERTIFICATE-----' })),
    null,
    "PEM certificates the directory server's certificate must chain to (ldaps:// and StartTLS); null: the system's trusted authorities.",
    { security: true },
  ),
  bindDn: defineSetting(
    'directory.bind_dn',
    Nullable(Type.String({ maxLength: 1024, minLength: 3 })),
    null,
    'The account that looks users up (its DN, or for Active Directory also user@domain); null: look up anonymously.',
    { security: true },
  ),
  bindPassword: defineSetting('directory.bind_password', Nullable(Type.String({ maxLength: 255 })), null, 'The password of directory.bind_dn (write-only, sealed at rest).', { secret: true }),
  userBaseDn: defineSetting('directory.user_base_dn', Type.String({ maxLength: 1024 }), '', 'Where users are searched (subtree), e.g. ou=people,dc=example,dc=org.', { security: true }),
  groupBaseDn: defineSetting(
    'directory.group_base_dn',
    Nullable(Type.String({ maxLength: 1024 })),
    null,
    'Where the daemons search the groups a directory user is a member of (subtree, groups whose attribute member lists the entry), for user groups mapped to a directory group (directory_group_dn); null: directory.user_base_dn.',
    { security: true },
  ),
  userAttribute: defineSetting(
    'directory.user_attribute',
    Type.String({ pattern: ATTRIBUTE }),
    'uid',
    'The attribute holding the user name the person types: uid (OpenLDAP), sAMAccountName (Active Directory).',
    { security: true },
  ),
  timeoutSeconds: defineSetting('directory.timeout_seconds', Type.Integer({ minimum: 1, maximum: 30 }), 5, 'How long a sign-in waits for the directory before it fails (closed).', { security: true }),
} as const

/** A value inside an LDAP search filter (RFC 4515): `*`, `(`, `)`, `\` and NUL escaped, so a user name is only ever a literal. */
export function escapeLdapFilterValue(value: string): string {
  return value.replace(/[*()\\\u0000]/g, (c) => '\\' + c.charCodeAt(0).toString(16).padStart(2, '0'))
}

/** The directory as a daemon's configuration needs it: the settings, and the user groups mapped to a directory group. */
export interface DaemonDirectory {
  url: string
  startTls: boolean
  caCertificate: string | null
  bindDn: string | null
  bindPassword: string | null
  userBaseDn: string
  groupBaseDn: string | null
  userAttribute: string
  timeoutSeconds: number
  /** The user groups mapped to a directory group (id, DN). */
  groups: { id: string; dn: string }[]
}

/** The directory in a render's snapshot, for the FreeRADIUS and tac_plus-ng renderers alike; null while directory.url is null. */
export async function readDaemonDirectory(settings: SettingsService, identity: IdentityService, snapshot: Knex.Transaction): Promise<DaemonDirectory | null> {
  const D = directorySettingRefs
  const url = await settings.get(D.url, snapshot)
  if (url === null) return null
  return {
    url,
    startTls: await settings.get(D.startTls, snapshot),
    caCertificate: await settings.get(D.caCertificate, snapshot),
    bindDn: await settings.get(D.bindDn, snapshot),
    bindPassword: await settings.get(D.bindPassword, snapshot),
    userBaseDn: await settings.get(D.userBaseDn, snapshot),
    groupBaseDn: await settings.get(D.groupBaseDn, snapshot),
    userAttribute: await settings.get(D.userAttribute, snapshot),
    timeoutSeconds: await settings.get(D.timeoutSeconds, snapshot),
    groups: (await identity.userGroups(snapshot)).flatMap((g) => (g.directory_group_dn ? [{ id: g.id, dn: g.directory_group_dn }] : [])),
  }
}
