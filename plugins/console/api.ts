/**
 * The console's contract with other plugins lives in the SDK (sdk/console.ts),
 * where plugins built outside this tree reach it; re-exported here as every
 * plugin's api.ts is imported.
 */
export { consoleServiceRef, type ConsoleExtension, type ConsolePage, type ConsoleService } from '../../sdk/index.js'
