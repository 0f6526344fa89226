/** Русский текст того, что ссылается на удаляемый объект (components/DeleteAsk.ts): `refs` в ru.ts. */
import type { RefsMessages } from './references-en'

const refs: RefsMessages = {
  blocking: 'Используется: сервер не даст удалить, пока на него ссылаются',
  clearing: (what: string) => `${what}: ссылка будет удалена`,
  none: 'Ссылок нет.',
  unread: 'Не удалось узнать, что на него ссылается.',
  types: {
    aaa_policy_rule: 'Правило политики AAA',
    nac_policy_rule: 'Правило политики NAC',
    tacacs_profile: 'Профиль TACACS+',
    captive_portal: 'Гостевой портал',
    mfa_totp: 'Приложение-аутентификатор',
    mfa_push_device: 'Устройство для push',
    nac_coa_nas: 'Настройки CoA устройства доступа',
    nac_endpoint: 'Оконечное устройство (владелец)',
    ncm_device: 'Устройство NCM',
    ncm_rule: 'Правило соответствия',
    ncm_schedule: 'Расписание сбора',
    ncm_configuration_history: 'Сохранённые конфигурации',
    report_definition: 'Отчёт',
  },
}

export default refs
