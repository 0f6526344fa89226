/**
 * The registry behind `coreServices.reportSources`: plugins add the report
 * sources over their own data at init, a report plugin lists them. Kept by
 * the kernel so that neither side names the other (sdk/report-sources.ts).
 */
import type { ReportSource, ReportSourcesService } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import { auditReportSource } from './audit-source.js'

const SOURCE_ID = /^[a-z][a-z0-9_-]{1,39}\.[a-z][a-z0-9_-]{1,60}$/

/** The registry, holding the kernel's own source (the audit trail) from the start. */
export function createReportSources(): ReportSourcesService {
  const sources = new Map<string, ReportSource>()
  const registry: ReportSourcesService = {
    add(plugin, source) {
      if (!SOURCE_ID.test(source.id) || !source.id.startsWith(`${plugin}.`)) {
        throw new BootError('PLUGIN_INVALID', `report source "${source.id}" of ${plugin} must be named "${plugin}.<name>" in lower case`)
      }
      if (sources.has(source.id)) throw new BootError('PLUGIN_INVALID', `report source "${source.id}" is added twice`)
      sources.set(source.id, source)
    },
    list: () => [...sources.values()],
    get: (id) => sources.get(id),
  }
  registry.add('kernel', auditReportSource)
  return registry
}
