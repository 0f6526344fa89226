import type { LocalizedText } from '../../sdk/index.js'

export const NAC_READ = 'nac.read'
export const NAC_WRITE = 'nac.write'
// Profiling and sessions (migration 0003).
export const NAC_PROFILING_WRITE = 'nac.profiling.write'
export const NAC_SESSIONS_READ = 'nac.sessions.read'

export const nacPermissions: Record<string, LocalizedText> = {
  [NAC_READ]: {
    en: 'See NAC endpoints (MAC addresses, owners, what the network last saw of them) and endpoint groups, and export the endpoint list.',
    ru: 'Просмотр оконечных устройств NAC (MAC-адреса, владельцы, что сеть видела о них последним) и групп оконечных устройств, выгрузка списка устройств.',
  },
  [NAC_WRITE]: {
    en: 'Add, change, import and remove NAC endpoints and endpoint groups (which decide, through the NAC policy, what a MAC address may reach).',
    ru: 'Добавление, изменение, импорт и удаление оконечных устройств NAC и групп оконечных устройств (через политику NAC они решают, куда MAC-адрес получит доступ).',
  },
  // Profiling and sessions (migration 0003).
  [NAC_PROFILING_WRITE]: {
    en: 'Add, change and remove NAC profiling rules (which decide the device type of endpoints, and through the groups\' placement rules their group), and set or clear an endpoint\'s device type by hand.',
    ru: 'Добавление, изменение и удаление правил профилирования NAC (они определяют тип оконечных устройств, а через правила размещения групп — их группу), ручная установка и сброс типа устройства.',
  },
  [NAC_SESSIONS_READ]: {
    en: 'See and export NAC sessions (who was on which switch port, when, with what VLAN and ACL, how many bytes), from RADIUS accounting.',
    ru: 'Просмотр и выгрузка сессий NAC (кто был на каком порту коммутатора, когда, с какими VLAN и ACL, сколько байт) по данным RADIUS-аккаунтинга.',
  },
}
