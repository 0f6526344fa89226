import type { LocalizedText } from '../../sdk/index.js'

export const TACACS_READ = 'tacacs.read'
export const TACACS_WRITE = 'tacacs.write'

export const tacacsPermissions: Record<string, LocalizedText> = {
  [TACACS_READ]: {
    en: 'Read TACACS+ command sets and profiles, and what refers to them.',
    ru: 'Просмотр наборов команд и профилей TACACS+ и ссылок на них.',
  },
  [TACACS_WRITE]: {
    en: 'Create, change and delete TACACS+ command sets and profiles.',
    ru: 'Создание, изменение и удаление наборов команд и профилей TACACS+.',
  },
}
