import type { LocalizedText } from '@portcullis/sdk'

export const REPORTS_READ = 'reports.read'
export const REPORTS_WRITE = 'reports.write'

/** A report shows data of other plugins: each source's own permission is needed besides these (docs/reports.md). */
export const reportPermissions: Record<string, LocalizedText> = {
  [REPORTS_READ]: {
    en: 'See report definitions, their runs and download their files (only reports over data the user may read).',
    ru: 'Просмотр определений отчётов, их запусков и загрузка файлов (только отчёты по данным, которые пользователь может читать).',
  },
  [REPORTS_WRITE]: {
    en: 'Create, change and delete report definitions and their schedules, and run reports now (over data the user may read).',
    ru: 'Создание, изменение и удаление определений отчётов и их расписаний, запуск отчётов (по данным, которые пользователь может читать).',
  },
}
