/** The sources a report may be made of: those the caller may read, nothing about the others. */
import { defineRoute } from '@portcullis/sdk'
import type { ReportDeps } from '../context.js'
import { REPORTS_READ } from '../permissions.js'
import { SourceList } from '../schemas.js'
import { mayUse } from '../services/definitions.js'
import { localized } from '../services/words.js'

export function sourceRoutes(d: ReportDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/reports/sources',
      permission: REPORTS_READ,
      summary: 'List the report sources the caller may use',
      description: 'Each with its title and description in the caller\'s language and the filters it honours. Sources over data the caller may not read are not listed.',
      tags: ['reports'],
      schema: { response: { 200: SourceList } },
      handler: async (req) => {
        const lang = req.lang === 'ru' ? 'ru' : 'en'
        const items = d.sources
          .list()
          .filter((s) => mayUse(req.actor!, s))
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .map((s) => ({ id: s.id, title: localized(s.title, lang), description: localized(s.description, lang), filters: [...s.filters] }))
        return { items }
      },
    }),
  ]
}
