/** Russian for the dashboard's update-check card: ru.ts's `updateFeed` (every key of update-feed-en.ts). */
import type { UpdateFeedMessages } from './update-feed-en'

const updateFeed: UpdateFeedMessages = {
  title: 'Обновления и уведомления безопасности',
  off: 'Проверка обновлений выключена (параметр update_feed.enabled). Когда она включена, установка запрашивает канал обновлений о новых выпусках и уведомлениях безопасности.',
  status: 'Состояние', checkedAt: 'Последняя проверка', lastOk: 'Последний верный ответ', running: 'Работающая версия', latest: 'Новейший выпуск',
  statuses: { never: 'ещё не проверялось', ok: 'в порядке', unreachable: 'недоступен', rejected: 'ответ отклонён' },
  reasons: {
    network_error: 'канал недоступен', timeout: 'канал не ответил вовремя', http_error: 'канал ответил ошибкой HTTP',
    too_large: 'ответ слишком большой', redirect_refused: 'перенаправление на неразрешённый узел', too_many_redirects: 'слишком много перенаправлений',
    malformed_json: 'ответ не является JSON', bad_envelope: 'ответ не является подписанным манифестом', unknown_key: 'подписан неизвестным ключом',
    bad_signature: 'подпись не совпадает (изменён или чужой ключ)', invalid_manifest: 'манифест неверен', wrong_edition: 'манифест для другой редакции',
    replayed: 'манифест старее сохранённого (повтор)',
    issued_in_future: 'манифест датирован более чем на сутки позже часов этого сервера',
  },
  httpStatus: (n: number) => `HTTP ${n}`,
  kept: 'Последний верный ответ ниже сохранён.',
  newer: (v: string) => `Доступна версия ${v}.`, upToDate: 'Это новейший выпуск.', releaseNotes: 'Примечания к выпуску',
  minSupported: (v: string) => `Совет: выпуски старее ${v} больше не поддерживаются. Ничего не принуждается.`,
  advisories: 'Уведомления безопасности для этой версии', noAdvisories: 'Известных уведомлений для этой версии нет.',
  severity: 'Важность', advisory: 'Уведомление', checkNow: 'Проверить сейчас', checked: 'Проверено.',
}
export default updateFeed
