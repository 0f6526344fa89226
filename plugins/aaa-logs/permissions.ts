import type { LocalizedText } from '../../sdk/index.js'

export const LOGS_READ = 'aaa-logs.read'
export const EXCLUSIONS_READ = 'aaa-logs.exclusions.read'
export const EXCLUSIONS_WRITE = 'aaa-logs.exclusions.write'

export const permissions: Record<string, LocalizedText> = {
  [LOGS_READ]: {
    en: 'See and export the AAA logs (TACACS+ and RADIUS authentication, authorization, accounting).',
    ru: 'Просмотр и выгрузка журналов AAA (аутентификация, авторизация и аккаунтинг TACACS+ и RADIUS).',
  },
  [EXCLUSIONS_READ]: {
    en: 'See the log exclusion rules and how many events each dropped.',
    ru: 'Просмотр правил исключения из журналов и числа отброшенных ими событий.',
  },
  [EXCLUSIONS_WRITE]: {
    en: 'Create, change and delete log exclusion rules.',
    ru: 'Создание, изменение и удаление правил исключения из журналов.',
  },
}
