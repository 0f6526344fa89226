/**
 * The Pro edition's reports: definitions over the report sources the other
 * plugins add (coreServices.reportSources), run now or on a schedule, rendered
 * to PDF, xlsx and HTML, mailed or downloaded, kept for a retention period.
 * A package of its own outside the core packages: it imports only
 * `@portcullis/sdk`, by name, and loads through the out-of-tree plugin
 * mechanism (docs/editions.md).
 */
import { definePlugin } from '@portcullis/sdk'

export default definePlugin({
  id: 'pro-reports',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Pro: scheduled reports (PDF, xlsx, HTML) over device administration, network access, certificates, configuration changes and the audit trail.',
  init() {
    return {}
  },
})
