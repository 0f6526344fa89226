/** Settings of the tac_plus-ng configuration: where it listens, where it logs. */
import { coreServices, defineServerOption, defineSetting, identityServices, Nullable, Type } from '../../../sdk/index.js'
import { inventoryServiceRef } from '../../inventory/api.js'

export const tacPlusNgSettingRefs = {
  listenAddress: defineSetting(
    'tacacs.listen_address',
    Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })]),
    '127.0.0.1',
    'The address tac_plus-ng listens on for TACACS+ (an IPv4 or IPv6 address of the host; `0.0.0.0` or `::` for all).',
  ),
  listenPort: defineSetting('tacacs.listen_port', Type.Integer({ minimum: 1, maximum: 65535 }), 49, 'The TCP port tac_plus-ng listens on (TACACS+ uses 49).'),
} as const

export const tacPlusNgSettings = Object.values(tacPlusNgSettingRefs)

/** Paths and programs: server options, from the server's configuration only (a daemon running as root writes where this points). */
export const tacPlusNgOptionRefs = {
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
