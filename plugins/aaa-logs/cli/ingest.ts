/**
 * `portcullis aaa-logs-ingest`: the ingester alone, without the HTTP server,
 * until SIGINT or SIGTERM (then it finishes the batch in flight). It runs in
 * the booted platform, so it reads exactly what the server would: the
 * settings table, the daemons' log folders (server options
 * tacacs.log_directory and radius.log_directory, through the deploy's
 * renderers), the node id, and the exclusion rules with their user groups. `--batch` and `--poll-ms` override
 * the settings for this run; `aaa-logs.ingest_enabled` does not stop it (running
 * it is the operator's explicit choice). Do not run it beside a server with the
 * same node id: the server's own ingester would tail the same files.
 */
import { parseArgs } from 'node:util'
import { cliInteger, defineCliCommand, type SettingRef, type SettingsService } from '../../../sdk/index.js'
import { createIngester, ingesterServiceRefs } from '../ingest/index.js'
import { ingestSettingRefs } from '../ingest/settings.js'
import { exclusionLoader } from '../services/exclusions.js'

/** The settings service with some keys fixed for this run. */
function withOverrides(settings: SettingsService, fixed: Map<string, unknown>): SettingsService {
  return {
    get: <T>(ref: SettingRef<T>, db?: Parameters<SettingsService['get']>[1]) => (fixed.has(ref.key) ? Promise.resolve(fixed.get(ref.key) as T) : settings.get(ref, db)),
    set: (ref, value, ctx) => settings.set(ref, value, ctx),
  }
}

export const ingestCommand = defineCliCommand({
  name: 'aaa-logs-ingest',
  summary: 'Run the log ingester alone, without the HTTP server, until SIGINT/SIGTERM',
  usage: '[--batch N] [--poll-ms MS]',
  deps: ingesterServiceRefs,
  async run(args, io, d) {
    const { values } = parseArgs({ args, options: { batch: { type: 'string' }, 'poll-ms': { type: 'string' } } })
    const fixed = new Map<string, unknown>([[ingestSettingRefs.enabled.key, true]])
    if (values.batch !== undefined) fixed.set(ingestSettingRefs.batchSize.key, cliInteger(values.batch, 'batch', 1, 100000, ingestSettingRefs.batchSize.default))
    if (values['poll-ms'] !== undefined) fixed.set(ingestSettingRefs.pollMs.key, cliInteger(values['poll-ms'], 'poll-ms', 10, 60000, 500))
    const ingester = createIngester({ ...d, settings: withOverrides(d.settings, fixed), logFolders: () => d.deploys.logFolders(), loadExclusions: exclusionLoader(d.identity) })
    d.logger.info({ nodeId: d.cluster.nodeId }, 'aaa-logs: ingester running')
    await ingester.start()
    await new Promise<void>((resolve) => (io.signal.aborted ? resolve() : io.signal.addEventListener('abort', () => resolve(), { once: true })))
    await ingester.stop()
    return 0
  },
})
