/** The tac_plus-ng log format now lives in the SDK (the aaa-logs ingester reads it too). */
export * from '../../../sdk/logs/tac-plus-ng.js'
