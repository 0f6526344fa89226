/** Settings of the tac_plus-ng configuration: where it listens, where it logs. */
import { coreServices, defineServerOption, defineSetting, identityServices, Nullable, Type } from '../../../sdk/index.js'
import { inventoryServiceRef } from '../../inventory/api.js'

export const tacPlusNgSettingRefs = {
  listenAddress: defineSetting(
    'tacacs.listen_address',
    Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })]),
    '127.0.0.1',
    'The address tac_plus-ng listens on for TACACS+ (an IPv4 or IPv6 address of the host; `0.0.0.0` or `::` for all).',
    // Every interface opens the password check to networks it was kept from: an administrator's decision.
    { security: true },
  ),
  listenPort: defineSetting('tacacs.listen_port', Type.Integer({ minimum: 1, maximum: 65535 }), 49, 'The TCP port tac_plus-ng listens on (TACACS+ uses 49).'),
  mfaMode: defineSetting(
    'tacacs.mfa_mode',
    Type.Union([Type.Literal('append'), Type.Literal('off')]),
    'append',
    'How tac_plus-ng asks users who have MFA for their code, once setting mfa.internal_key is set (docs/tac_plus-ng.md): `append` takes the password followed by the 6-digit code at the ASCII password prompt and in PAP (CHAP and MS-CHAP are then off for everyone: they carry no code); `off` takes the password alone. Applies at the next deploy.',
    { security: true },
  ),
} as const

export const tacPlusNgSettings = Object.values(tacPlusNgSettingRefs)

/** Paths and programs: server options, from the server's configuration only (a daemon running as root writes where this points). */
/** A system user or group: a name as useradd takes it, or a numeric id. */
const ACCOUNT = Type.String({ minLength: 1, maxLength: 32, pattern: '^(?:[0-9]+|[A-Za-z_][A-Za-z0-9_.-]*)$' })

export const tacPlusNgOptionRefs = {
  user: defineServerOption(
    'tacacs.daemon_user',
    Nullable(ACCOUNT),
    null,
    'The unprivileged system user tac_plus-ng runs as (`spawn { userid groupid }`: the workers that read the configuration, answer devices and write the logs run as it; the spawnd process keeps root to listen on port 49); its release files are then readable by the group of `tacacs.daemon_group` only (0640) and its log folders writable by it. `null`: it runs as whoever starts it (root). Must exist on the machine: the deploy check fails otherwise.',
    { env: 'TAC_PLUS_NG_USER' },
  ),
  group: defineServerOption(
    'tacacs.daemon_group',
    Nullable(ACCOUNT),
    null,
    'The system group tac_plus-ng runs as, with `tacacs.daemon_user` (both or neither): it reads the release files, owns the log files; the platform reads the logs as a member of it (or as root).',
    { env: 'TAC_PLUS_NG_GROUP' },
  ),
  logDirectory: defineServerOption(
    'tacacs.log_directory',
    Nullable(Type.String({ minLength: 2, maxLength: 500, pattern: '^/(?!.*\\$\\{)[^\\u0000-\\u001f]*$' })),
    null,
    'Absolute folder where tac_plus-ng writes its authentication, authorization and accounting logs for the ingester. `null`: `logs/tacacs` in the platform data folder.',
    { env: 'TACACS_LOG_DIRECTORY' },
  ),
  binary: defineServerOption(
    'tacacs.binary',
    Type.String({ minLength: 1, maxLength: 500, pattern: '^[^\\u0000-\\u001f]+$' }),
    'tac_plus-ng',
    'The tac_plus-ng binary (a path, or a name on PATH) that checks each release before it is deployed (`tac_plus-ng -P`). Absent binary: the check is skipped and the deploy says so.',
    { env: 'TAC_PLUS_NG' },
  ),
  // Account lockout (identity.lockout_threshold > 0) runs through MAVIS: renderers/lockout.ts.
  mavisDirectory: defineServerOption(
    'tacacs.mavis_directory',
    Nullable(Type.String({ minLength: 2, maxLength: 500, pattern: '^/(?!.*\\$\\{)[^\\u0000-\\u001f]*$' })),
    null,
    'Absolute folder of the MAVIS modules of tac_plus-ng (`libmavis_tacauth_limit.so`, `libmavis_external.so`) and the upstream Perl backend `mavis_tacplus_shadow.pl`, used only while account lockout is on (setting `identity.lockout_threshold` > 0). `null`: `lib/mavis` under the install prefix of `tacacs.binary` (the folder above its `sbin`), when it exists. Missing while lockout is on: the render fails.',
    { env: 'TACACS_MAVIS_DIRECTORY' },
  ),
  lockoutDirectory: defineServerOption(
    'tacacs.lockout_directory',
    Nullable(Type.String({ minLength: 2, maxLength: 32, pattern: '^/(?!.*\\$\\{)[^\\u0000-\\u001f"]*$' })),
    null,
    'Absolute folder where tac_plus-ng (MAVIS tacauth_limit) keeps the failure counts while account lockout is on; the deploy gives it to the daemon group. At most 32 characters: the module copies only the first 36 characters of the folder into each count file\'s path (libmavis_tacauth_limit.c), so a longer one makes every user share one count; the render fails then. `null`: `tacacs-lock` in the platform data folder.',
    { env: 'TACACS_LOCKOUT_DIRECTORY' },
  ),
  perlBinary: defineServerOption(
    'tacacs.perl_binary',
    Type.String({ minLength: 2, maxLength: 500, pattern: '^/[^\\u0000-\\u001f]*$' }),
    '/usr/bin/perl',
    'Absolute path of the Perl interpreter that runs the MAVIS backend `mavis_tacplus_shadow.pl` (checks the passwords while account lockout is on). Missing while lockout is on: the render fails.',
    { env: 'TACACS_PERL' },
  ),
} as const

export const tacPlusNgOptions = Object.values(tacPlusNgOptionRefs)

/** The services the renderer reads besides the tacacs service itself (the manifest needs `dependsOn: ['inventory']`). */
export const tacPlusNgDeps = {
  inventory: inventoryServiceRef,
  identity: identityServices.identity,
  settings: coreServices.settings,
  serverOptions: coreServices.serverOptions,
  platform: coreServices.platform,
} as const
