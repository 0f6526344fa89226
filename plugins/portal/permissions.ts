import type { LocalizedText } from '../../sdk/index.js'

/** See portals, guests, portal sessions and pending sponsor approvals. */
export const PORTAL_READ = 'portal.read'
/** Create, change and remove portals (methods, durations, endpoint groups, branding). */
export const PORTAL_MANAGE = 'portal.manage'
/** Guest accounts (create for an event, extend, revoke, mail credentials) and ending portal sessions. */
export const PORTAL_GUESTS = 'portal.guests'
/**
 * Approve or deny a guest's request for access. Also what a portal's sponsor group grants by
 * membership (identity.registerCapabilityGroups): only a holder puts a user into that group.
 */
export const PORTAL_SPONSOR = 'portal.sponsor'

export const portalPermissions: Record<string, LocalizedText> = {
  [PORTAL_READ]: {
    en: 'See the captive portals, guest accounts, portal sessions and sponsor requests waiting for a decision.',
    ru: 'Просмотр гостевых порталов, гостевых учётных записей, сеансов портала и запросов, ожидающих решения спонсора.',
  },
  [PORTAL_MANAGE]: {
    en: 'Create, change and remove captive portals: their registration methods, durations, the endpoint groups they give, and their branding.',
    ru: 'Создание, изменение и удаление гостевых порталов: способы регистрации, сроки, выдаваемые группы оконечных устройств и оформление.',
  },
  [PORTAL_GUESTS]: {
    en: 'Create guest accounts (in bulk for an event), mail their credentials, extend and revoke them, and end portal sessions (which disconnects the device).',
    ru: 'Создание гостевых учётных записей (пакетом для мероприятия), отправка учётных данных, продление и отзыв, завершение сеансов портала (устройство отключается).',
  },
  [PORTAL_SPONSOR]: {
    en: 'Approve or deny guests who ask for network access as their sponsor.',
    ru: 'Одобрение или отклонение запросов гостей на доступ к сети в качестве спонсора.',
  },
}
