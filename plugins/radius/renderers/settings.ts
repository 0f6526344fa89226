/** Settings of the FreeRADIUS configuration: where it listens, where it logs, which binary checks it. */
import { coreServices, defineServerOption, defineSetting, identityServices, Nullable, Type } from '../../../sdk/index.js'
import { inventoryServiceRef } from '../../inventory/api.js'

export const freeradiusSettingRefs = {
  listenAddress: defineSetting(
    'radius.listen_address',
    Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })]),
    '127.0.0.1',
    'The address FreeRADIUS listens on for RADIUS (an IPv4 or IPv6 address of the host; `0.0.0.0` or `::` for all).',
    // Every interface opens the password check to networks it was kept from: an administrator's decision.
    { security: true },
  ),
  authPort: defineSetting('radius.auth_port', Type.Integer({ minimum: 1, maximum: 65535 }), 1812, 'The UDP port FreeRADIUS answers authentication on (RADIUS uses 1812).'),
  acctPort: defineSetting('radius.acct_port', Type.Integer({ minimum: 1, maximum: 65535 }), 1813, 'The UDP port FreeRADIUS answers accounting on (RADIUS uses 1813).'),
  mfaMode: defineSetting(
    'radius.mfa_mode',
    Type.Union([Type.Literal('challenge'), Type.Literal('append'), Type.Literal('off')]),
    'challenge',
    'How FreeRADIUS asks users who have MFA for their code, once setting mfa.internal_key is set (docs/freeradius.md): `challenge` answers the right password with an Access-Challenge and takes the code in the next request; `append` takes the password followed by the 6-digit code in one request, for NASes that cannot answer a challenge; `off` takes the password alone. Applies at the next deploy.',
    { security: true },
  ),
  mfaAppendDeviceGroups: defineSetting(
    'radius.mfa_append_device_groups',
    Type.Array(Type.String({ format: 'uuid' }), { maxItems: 500, uniqueItems: true }),
    [],
    'Device groups whose NASes cannot answer an Access-Challenge: while radius.mfa_mode is `challenge`, their devices (and those of the groups below them) take the password followed by the 6-digit code in one request, as in `append`; the other devices are challenged. Ids of existing device groups (a deploy refuses one that names none). Applies at the next deploy (docs/freeradius.md).',
    { security: true },
  ),
} as const

export const freeradiusSettings = Object.values(freeradiusSettingRefs)

/** Paths and programs: server options, from the server's configuration only (a daemon running as root writes where this points). */
/** A system user or group: a name as useradd takes it, or a numeric id. */
const ACCOUNT = Type.String({ minLength: 1, maxLength: 32, pattern: '^(?:[0-9]+|[A-Za-z_][A-Za-z0-9_.-]*)$' })

export const freeradiusOptionRefs = {
  user: defineServerOption(
    'radius.daemon_user',
    Nullable(ACCOUNT),
    null,
    'The unprivileged system user FreeRADIUS runs as (`security { user group }` in radiusd.conf: it opens its sockets as root, then runs as it); its release files are then readable by the group of `radius.daemon_group` only (0640) and its log folders writable by it. `null`: it runs as whoever starts it (root). Must exist on the machine: the deploy check fails otherwise.',
    { env: 'FREERADIUS_USER' },
  ),
  group: defineServerOption(
    'radius.daemon_group',
    Nullable(ACCOUNT),
    null,
    'The system group FreeRADIUS runs as, with `radius.daemon_user` (both or neither): it reads the release files, owns the log files; the platform reads the logs as a member of it (or as root).',
    { env: 'FREERADIUS_GROUP' },
  ),
  logDirectory: defineServerOption(
    'radius.log_directory',
    Nullable(Type.String({ minLength: 2, maxLength: 500, pattern: '^/(?!.*\\$)(?!.*%)[^\\u0000-\\u001f"\\\\{}]*$' })),
    null,
    'Absolute folder where FreeRADIUS writes its authentication and accounting lines (radius-auth-*.jsonl, radius-acct-*.jsonl) for the ingester, and its own log (radius.log). `null`: `logs/radius` in the platform data folder (the ingester\'s default too).',
    { env: 'RADIUS_LOG_DIRECTORY' },
  ),
  runDirectory: defineServerOption(
    'radius.run_directory',
    Nullable(Type.String({ minLength: 2, maxLength: 500, pattern: '^/(?!.*\\$)(?!.*%)[^\\u0000-\\u001f"\\\\{}]*$' })),
    null,
    'Absolute folder of FreeRADIUS\'s pid file (freeradius.pid), created by the daemon when it starts. `null`: `run/freeradius` in the platform data folder, away from the packaged service\'s /var/run/freeradius.',
    { env: 'RADIUS_RUN_DIRECTORY' },
  ),
  libdir: defineServerOption(
    'radius.freeradius_libdir',
    Nullable(Type.String({ minLength: 2, maxLength: 1000, pattern: '^/(?!.*\\$)(?!.*%)(?!.*:(?!/))[^\\u0000-\\u001f"\\\\{}]*$' })),
    null,
    'Where FreeRADIUS finds its modules (rlm_*.so): absolute folders separated by ":", tried in turn. `null`: the folders the common packages use (/usr/lib/freeradius, /usr/lib64/freeradius, /usr/local/lib/freeradius, /usr/local/lib), then the linker\'s search path.',
    { env: 'FREERADIUS_LIBDIR' },
  ),
  binary: defineServerOption(
    'radius.freeradius_binary',
    Type.String({ minLength: 1, maxLength: 500, pattern: '^[^\\u0000-\\u001f]+$' }),
    'freeradius',
    'The FreeRADIUS binary that checks a rendered release (`-C -l stdout -d DIR`): a name looked up on PATH or an absolute path (`radiusd` on some systems).',
    { env: 'FREERADIUS_BINARY' },
  ),
  // 802.1X (renderers/nac-eap.ts): the server's certificate and key are files on the server, never in the database.
  eapCertificateFile: defineServerOption(
    'radius.eap_certificate_file',
    Nullable(Type.String({ minLength: 2, maxLength: 500, pattern: '^/(?!.*\\$)(?!.*%)[^\\u0000-\\u001f"\\\\{}]*$' })),
    null,
    'Absolute path of the EAP server certificate (PEM, the chain after it) FreeRADIUS presents in PEAP and EAP-TLS, readable by the daemon. With `radius.eap_private_key_file` (both or neither) and a NAC policy (the nac plugin), the tree serves 802.1X; `null`: no eap module, only MAB (docs/freeradius.md "802.1X and MAB").',
    { env: 'RADIUS_EAP_CERTIFICATE_FILE' },
  ),
  eapPrivateKeyFile: defineServerOption(
    'radius.eap_private_key_file',
    Nullable(Type.String({ minLength: 2, maxLength: 500, pattern: '^/(?!.*\\$)(?!.*%)[^\\u0000-\\u001f"\\\\{}]*$' })),
    null,
    'Absolute path of the private key (PEM, unencrypted; mode 0600 or 0640 for the daemon\'s group) of `radius.eap_certificate_file`. Never stored in the database.',
    { env: 'RADIUS_EAP_PRIVATE_KEY_FILE' },
  ),
} as const

export const freeradiusOptions = Object.values(freeradiusOptionRefs)

/** The services the renderer reads besides the radius service itself (the manifest needs `dependsOn: ['inventory']`). */
export const freeradiusDeps = {
  inventory: inventoryServiceRef,
  identity: identityServices.identity,
  settings: coreServices.settings,
  serverOptions: coreServices.serverOptions,
  platform: coreServices.platform,
} as const
