import impactUnreplayable from './unreplayable-ru.js'
import trace from './trace-ru.js'
import verdict from './verdict-ru.js'
import refusals from './refusals-ru.js'
import conditionReason from './conditions-ru.js'

export default {
  errors: {
    name_taken: 'Правило политики с именем «{{name}}» уже существует.',
    default_protected: 'Правило по умолчанию нельзя удалить. Назначьте ему профиль или оставьте без профиля, чтобы оно запрещало доступ.',
    default_fixed: 'Правило по умолчанию действует для всех пользователей на всех устройствах и всегда проверяется последним: поле «{{name}}» у него задать нельзя.',
    missing: {
      user: 'Пользователь с идентификатором {{id}} не найден.',
      group: 'Группа пользователей с идентификатором {{id}} не найдена.',
      device: 'Устройство с идентификатором {{id}} не найдено.',
      device_group: 'Группа устройств с идентификатором {{id}} не найдена.',
      tacacs_profile: 'Профиль TACACS+ с идентификатором {{id}} не найден.',
      radius_profile: 'Профиль RADIUS с идентификатором {{id}} не найден.',
      rule: 'Правило политики с идентификатором {{id}} не найдено.',
    },
    unavailable: {
      tacacs_profile: 'Профиль TACACS+ с идентификатором {{id}} не найден: в этой редакции плагин tacacs не загружен. Не указывайте tacacs_profile_id или передайте null.',
      radius_profile: 'Профиль RADIUS с идентификатором {{id}} не найден: в этой редакции плагин radius не загружен. Не указывайте radius_profile_id или передайте null.',
    },
    who_exactly_one: 'Укажите ровно одно из полей who.user_id и who.group_id.',
    where_exactly_one: 'Укажите ровно одно из полей where.device_id и where.device_group_id.',
    condition_invalid: 'Неверное условие правила: {{reason}}.',
    position_range: 'Позиция должна быть от 0 до {{max}}: правило по умолчанию остаётся последним.',
    order_duplicate: 'Правило {{id}} встречается в порядке больше одного раза.',
    order_incomplete: 'Порядок должен содержать каждое правило ровно один раз; правило {{id}} пропущено.',
    default_not_last: 'Правило по умолчанию должно быть последним.',
    test_target: 'Укажите ровно одно из полей device_id и nas_ip.',
    test_command_shell: 'Команда авторизуется в сервисе shell; не указывайте service или укажите shell.',
    test_protocol_unavailable: 'В этой редакции не загружен плагин {{plugin}}: демона {{protocol}}, который принял бы решение, нет. Проверьте другой протокол.',
    test_tacacs_only: 'Поле «{{name}}» относится только к протоколу TACACS+.',
    test_command_cr: 'Слово <cr> допустимо только последним — это метка конца строки, которую добавляет NAS Cisco: в другом месте tac_plus-ng решает по-разному в зависимости от собственной метки NAS, и единственного верного ответа нет.',
    test_method_tacacs_only: 'Метод {{method}} есть только в TACACS+: вход по RADIUS — pap, chap или mschapv2.',
    test_not_deployed: 'На этом узле нет активного выпуска {{daemon}} с входными данными теста политики (развёртывания не было, или оно было до того, как выпуски стали их хранить): сначала разверните конфигурацию или проверяйте по базе данных.',
  },
  trace,
  verdict: { ...verdict, ...refusals },
  condition_reason: conditionReason,
  impact_unreplayable: impactUnreplayable,
}
