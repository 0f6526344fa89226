import type { LocalizedText } from '../../sdk/index.js'

export const NAC_READ = 'nac.read'
export const NAC_WRITE = 'nac.write'
// The NAC policy: authorization profiles, rules, the policy test.
export const NAC_POLICY_READ = 'nac.policy.read'
export const NAC_POLICY_WRITE = 'nac.policy.write'
/** Change of Authorization: asking a NAS to reauthenticate, disconnect or bounce an endpoint's session. */
export const NAC_COA_SEND = 'nac.coa.send'
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
  [NAC_POLICY_READ]: {
    en: 'See the NAC authorization profiles and policy rules, and run the NAC policy test (which reads user and endpoint groups and device groups to answer).',
    ru: 'Просмотр профилей авторизации и правил политики NAC, запуск проверки политики NAC (она читает группы пользователей, оконечных устройств и устройств).',
  },
  [NAC_POLICY_WRITE]: {
    en: 'Add, change, reorder and remove NAC authorization profiles and policy rules: what every endpoint on the network is given.',
    ru: 'Добавление, изменение, переупорядочивание и удаление профилей авторизации и правил политики NAC: что получает каждое устройство в сети.',
  },
  [NAC_COA_SEND]: {
    en: "Send a Change of Authorization to the NAS that last saw an endpoint: reauthenticate it, end its session, or bounce its switch port (RFC 5176).",
    ru: 'Отправка Change of Authorization на NAS, последним видевший оконечное устройство: повторная авторизация, завершение сессии или перезапуск порта коммутатора (RFC 5176).',
  },
  [NAC_PROFILING_WRITE]: {
    en: 'Add, change and remove NAC profiling rules (which decide the device type of endpoints, and through the groups\' placement rules their group), and set or clear an endpoint\'s device type by hand.',
    ru: 'Добавление, изменение и удаление правил профилирования NAC (они определяют тип оконечных устройств, а через правила размещения групп — их группу), ручная установка и сброс типа устройства.',
  },
  [NAC_SESSIONS_READ]: {
    en: 'See and export NAC sessions (who was on which switch port, when, with what VLAN and ACL, how many bytes), from RADIUS accounting.',
    ru: 'Просмотр и выгрузка сессий NAC (кто был на каком порту коммутатора, когда, с какими VLAN и ACL, сколько байт) по данным RADIUS-аккаунтинга.',
  },
}
