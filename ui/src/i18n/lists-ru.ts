/** Русские слова фильтров списков, перенесённых на общую таблицу (`lists` в ru.ts). */
import type { ListsMessages } from './lists-en'

const lists: ListsMessages = {
  anyStatus: 'Любое состояние',
  statusFilter: 'Состояние',
  certIssued: 'Выпущен',
  anyOutcome: 'Любой результат',
  outcomeFilter: 'Последний сбор',
  nextFetch: 'Следующий сбор',
}

export default lists
