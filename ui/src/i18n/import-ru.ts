/** Русский для импорта устройств и пользователей из CSV и поиска устройства по адресу: `imports` в ru.ts. */
import type { ImportMessages } from './import-en'

const imports: ImportMessages = {
  importCsv: 'Импорт CSV',
  devicesTitle: 'Импорт устройств из CSV',
  usersTitle: 'Импорт пользователей из CSV',
  devicesHint: 'Столбцы: name (обязателен), address, device_group, vendor, model, description, tacacs_key, radius_secret, enabled. Существующее имя обновляется; пустая ячейка ключа оставляет ключ. Ключи никогда не показываются.',
  usersHint: 'Столбцы: username (обязателен), display_name, email, source, password, enabled, is_admin, network_login, chap_enabled, must_change_password, expires_at, groups и roles (имена через «;»). Существующие пользователи пропускаются. Пароли хешируются и никогда не показываются.',
  file: 'Файл CSV',
  dryRun: 'Только проверить (ничего не записывать)',
  partial: 'Записать прошедшие проверку строки, даже если другие отклонены',
  run: 'Импортировать',
  close: 'Закрыть',
  applied: 'Записано',
  notApplied: 'Ничего не записано',
  counts: (created, updated, unchanged, skipped, refused) =>
    `Создано: ${created}, обновлено: ${updated}, без изменений: ${unchanged}, пропущено: ${skipped}, отклонено: ${refused}`,
  rows: 'Строки файла',
  line: 'Строка',
  key: 'Имя',
  outcome: 'Результат',
  column: 'Столбец',
  why: 'Причина',
  outcomes: { created: 'создано', updated: 'обновлено', unchanged: 'без изменений', skipped: 'пропущено', refused: 'отклонено' },
  covering: {
    label: 'Какое устройство покрывает адрес',
    placeholder: 'IP-адрес, например 10.1.2.3',
    find: 'Найти',
    title: (address: string) => `Записи устройств, содержащие ${address}, от самой точной`,
    none: 'Ни одна запись устройства не содержит этот адрес.',
    prefix: 'Длина префикса',
    tacacs: 'Используется TACACS+',
    radius: 'Используется RADIUS',
    disabled: 'отключено',
  },
}

export default imports
