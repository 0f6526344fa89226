/**
 * A test plugin for the Reports page's browser test: one report source with
 * a fixed section and no table of its own, so the page's test stands without
 * the real sources (their own tests cover them).
 */
import { coreServices, definePlugin } from '@portcullis/sdk'

export default definePlugin({
  id: 'report-page-fixture',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Test fixture: a report source with fixed rows.',
  deps: { sources: coreServices.reportSources },
  init({ sources }) {
    sources.add('report-page-fixture', {
      id: 'report-page-fixture.sample',
      title: { en: 'Sample events', ru: 'Пример событий' },
      description: { en: 'Three fixed rows.', ru: 'Три постоянные строки.' },
      permission: 'inventory.read',
      filters: [],
      run: async (q) => ({
        figures: [{ label: { en: 'Events', ru: 'События' }, value: 3 }],
        charts: [{ title: { en: 'Events by user', ru: 'События по пользователям' }, kind: 'bar', points: [{ label: 'alice', value: 2 }, { label: 'bob', value: 1 }] }],
        columns: [
          { key: 'at', title: { en: 'Time', ru: 'Время' }, type: 'timestamp' },
          { key: 'user', title: { en: 'User', ru: 'Пользователь' }, type: 'text' },
        ],
        rows: [0, 1, 2].map((i) => ({ at: new Date(q.from.getTime() + i * 60_000).toISOString(), user: i === 2 ? 'bob' : 'alice' })),
        truncated: false,
        totalRows: 3,
      }),
    })
    return {}
  },
})
