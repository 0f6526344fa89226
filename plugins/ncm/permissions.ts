import type { LocalizedText } from '../../sdk/index.js'

export const NCM_READ = 'ncm.read'
export const NCM_REVEAL = 'ncm.reveal'
export const NCM_MANAGE = 'ncm.manage'
export const NCM_COLLECTORS_MANAGE = 'ncm.collectors.manage'
export const NCM_RULES_MANAGE = 'ncm.rules.manage'

export const ncmPermissions: Record<string, LocalizedText> = {
  [NCM_READ]: {
    en: 'See tracked device configurations, their history, diffs, search results, collectors and compliance, with secrets masked.',
    ru: 'Просмотр отслеживаемых конфигураций устройств, их истории, различий, поиска, сборщиков и соответствия правилам; секреты скрыты.',
  },
  [NCM_REVEAL]: {
    en: 'See stored device configurations with their secrets (?reveal=true).',
    ru: 'Просмотр сохранённых конфигураций устройств вместе с секретами (?reveal=true).',
  },
  [NCM_MANAGE]: {
    en: 'Manage configuration tracking: schedules, device overrides, command profiles, device credentials, fetch now, forget history, reset a host key.',
    ru: 'Управление отслеживанием конфигураций: расписания, параметры устройств, профили команд, учётные данные устройств, внеочередной сбор, удаление истории, сброс ключа хоста.',
  },
  [NCM_COLLECTORS_MANAGE]: {
    en: 'Create, enroll, revoke and remove configuration collectors.',
    ru: 'Создание, регистрация, отзыв и удаление сборщиков конфигураций.',
  },
  [NCM_RULES_MANAGE]: {
    en: 'Manage configuration compliance rules (also needs ncm.reveal: rules read the configurations with their secrets).',
    ru: 'Управление правилами соответствия конфигураций (нужно также ncm.reveal: правила читают конфигурации вместе с секретами).',
  },
}
