/** Russian for the lists' shared table pieces: ru.ts's `table` (every key of table-en.ts). */
import type { TableMessages } from './table-en'

const table: TableMessages = {
  perPage: 'Строк на странице',
  selectAll: 'Выбрать все строки на этой странице',
  select: (name) => `Выбрать ${name}`,
  selected: (n) => `Выбрано: ${n}`,
  bulkActions: 'Действия с выбранными строками',
  clear: 'Снять выбор',
  enable: 'Включить',
  disable: 'Отключить',
  moveToGroup: 'Переместить в группу',
  group: 'Группа',
  move: 'Переместить',
  moveTitle: (n) => `Переместить выбранные (${n}) в группу`,
  deleteTitle: (n) => `Удалить выбранные (${n})`,
  deleteQuestion: (n) => `Удалить выбранные (${n})? Это нельзя отменить.`,
  coaTitle: (action, n) => `${action}: выбранные сессии (${n})`,
  coaQuestion: (action, n) => `Отправить «${action}» оконечным устройствам выбранных сессий (${n})? Их сессии будут прерваны.`,
  more: (n) => `… и ещё ${n}`,
  working: (done, all) => `Выполняется: ${done} из ${all}…`,
  done: (action, ok, all) => `${action}: выполнено ${ok} из ${all}.`,
  failed: (n) => `Не удалось: ${n}`,
}

export default table
