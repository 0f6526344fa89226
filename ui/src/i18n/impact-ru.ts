/** Russian for the change impact on the Deploys screen: ru.ts's `impact` (every key of impact-en.ts). */
import type { ImpactMessages } from './impact-en'

const n = (x: number) => x.toLocaleString('ru-RU')
/** Russian plural forms: 1 (21, 31…), 2–4 (22–24…), the rest. */
const form = (x: number, one: string, few: string, many: string) => {
  const d = x % 10
  const h = x % 100
  return d === 1 && h !== 11 ? one : d >= 2 && d <= 4 && (h < 12 || h > 14) ? few : many
}
const pl = (x: number, one: string, few: string, many: string) => `${n(x)} ${form(x, one, few, many)}`
const lastDays = (x: number) => (x === 1 ? 'последний день' : `последние ${pl(x, 'день', 'дня', 'дней')}`)

const impact: ImpactMessages = {
  title: 'Чей доступ изменится',
  checking: 'Реальные запросы последних дней проверяются по изменённой политике…',
  sources: { aaa: 'Политика AAA', nac: 'Политика NAC' },
  sentence: (s) => {
    const parts: string[] = []
    if (s.users_losing_access) parts.push(`${pl(s.users_losing_access, 'пользователь теряет', 'пользователя теряют', 'пользователей теряют')} доступ к ${pl(s.devices_losing_access, 'устройству', 'устройствам', 'устройствам')}`)
    if (s.deny_to_permit.requests) parts.push(`${pl(s.deny_to_permit.events, 'запрос теперь разрешён', 'запроса теперь разрешены', 'запросов теперь разрешены')}`)
    if (s.attributes.requests) parts.push(`${pl(s.attributes.events, 'запрос получает', 'запроса получают', 'запросов получают')} другие атрибуты`)
    if (s.rules_newly_deciding) {
      const r = s.rules_newly_deciding
      parts.push(`${pl(r, 'правило теперь решает', 'правила теперь решают', 'правил теперь решают')} ${pl(s.requests_newly_decided.events, 'запрос', 'запроса', 'запросов')}, ${r === 1 ? 'которые раньше решало не оно' : 'которые раньше решали не они'}`)
    }
    return parts.length ? parts.join('; ') : 'Ни один воспроизведённый запрос не получает другого ответа'
  },
  replayed: (distinct, events, days) => `Воспроизведено ${pl(distinct, 'различный запрос', 'различных запроса', 'различных запросов')} (${pl(events, 'реальный запрос', 'реальных запроса', 'реальных запросов')}) за ${lastDays(days)}.`,
  unaffected: (events) => `Ещё ${pl(events, 'реальный запрос', 'реальных запроса', 'реальных запросов')} за этот период правка не затрагивает (их пользователь, устройство, правила и профили не изменились): ответ тот же, они не воспроизводились.`,
  states: {
    unavailable: 'Недоступно: модуль не загружен.',
    forbidden: 'Не показано: у вас нет права читать эту политику или её журналы.',
    failed: (e) => `Не удалось вычислить: ${e}`,
  },
  limits: {
    max_requests: (x) => `Остановлено на пределе в ${n(x)} различных запросов: числа относятся к ним.`,
    time_budget: (x) => `Остановлено по лимиту времени ${n(x)} с: числа относятся к тому, что успели воспроизвести.`,
  },
  details: 'Подробности',
  groups: { users: 'Пользователи', user_groups: 'Группы пользователей', devices: 'Устройства', device_groups: 'Группы устройств', rules: 'Правила' },
  columns: { name: 'Имя', permit_to_deny: 'Разрешение → запрет', deny_to_permit: 'Запрет → разрешение', attributes: 'Атрибуты', rule: 'Только правило', events: 'Реальные запросы' },
  changes: (shown, total) => `Изменившиеся запросы (${n(shown)} из ${n(total)})`,
  change: { permit_to_deny: 'разрешение → запрет', deny_to_permit: 'запрет → разрешение', attributes: 'атрибуты', rule: 'правило' },
  kinds: {
    tacacs_authentication: 'Вход TACACS+', tacacs_session: 'Сеанс TACACS+', tacacs_command: 'Команда TACACS+',
    radius_authentication: 'Вход RADIUS', nac_authentication: 'NAC',
  },
  request: 'Запрос', changeColumn: 'Изменение', before: 'Развёрнуто', after: 'Изменено', events: 'Реальные запросы',
  noRule: 'нет правила', line: (set, line) => `${set}: ${line ?? 'по умолчанию'}`,
  testDeployed: 'Проверить по развёрнутой политике', testPending: 'Проверить по изменённой политике',
  unreplayable: (x, events) => `Не воспроизводится: ${pl(x, 'запрос', 'запроса', 'запросов')} (${pl(events, 'реальный запрос', 'реальных запроса', 'реальных запросов')})`,
  confirmQuestion: (requests, events, days) =>
    `Разрешённых сегодня запросов, которые после развёртывания будут запрещены: ${n(requests)} (${pl(events, 'реальный запрос', 'реальных запроса', 'реальных запросов')} за ${lastDays(days)}). Всё равно развернуть?`,
  deployAnyway: 'Всё равно развернуть',
}

export default impact
