/** The AAA logs' report sources (sdk/report-sources.ts), added at init. */
import type { ReportSourcesService } from '../../../sdk/index.js'
import type { ReportDeps } from './filters.js'
import { radiusAuthenticationsSource } from './radius-authentications.js'
import { tacacsActivitySource } from './tacacs-activity.js'

export function addReportSources(reportSources: ReportSourcesService, deps: ReportDeps): void {
  reportSources.add('aaa-logs', tacacsActivitySource(deps))
  reportSources.add('aaa-logs', radiusAuthenticationsSource(deps))
}
