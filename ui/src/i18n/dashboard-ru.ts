/** Русские слова карточек активности на главной странице и диапазонов и живого просмотра журналов: `dash` в ru.ts. */
import type { DashMessages } from './dashboard-en'

const plural = (n: number, one: string, few: string, many: string) => {
  const m10 = n % 10
  const m100 = n % 100
  return m10 === 1 && m100 !== 11 ? one : m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14) ? few : many
}

const dash: DashMessages = {
  activity: 'Аутентификации', activityHint: (perMinute) => (perMinute ? 'В минуту, по результату' : 'В час, по результату'),
  ranges: { '15m': 'Последние 15 минут', '1h': 'Последний час', '24h': 'Последние 24 часа', '7d': 'Последние 7 дней', custom: 'Произвольный' },
  range: 'Период',
  protocols: { tacacs: 'TACACS+', radius: 'RADIUS', nac: 'NAC (802.1X, MAB)' },
  success: 'успешно', failure: 'неуспешно',
  bar: (at, ok, failed) => `${at}: успешно ${ok}, неуспешно ${failed}`,
  chart: (what, ok, failed, range) => `${what}, ${range.toLowerCase()}: успешно ${ok}, неуспешно ${failed}`,
  noActivity: 'За этот период аутентификаций нет.',
  topFailures: 'Больше всего отказов (24 часа)', users: 'Пользователи', devices: 'Устройства', failures: 'Отказы', noTopFailures: 'За последние 24 часа отказов в аутентификации нет.',
  sessions: 'Сессии NAC', liveSessions: 'Активные сессии', openSessions: 'Открыть сессии',
  certificates: 'Сертификаты, истекающие в ближайшие 30 дней', noExpiring: 'В ближайшие 30 дней сертификаты не истекают.', subject: 'Субъект', expires: 'Истекает',
  allCertificates: 'Все сертификаты', inDays: (d) => (d <= 0 ? 'сегодня' : `через ${d} ${plural(d, 'день', 'дня', 'дней')}`),
  pending: 'Неприменённые изменения', pendingNone: 'Демоны работают с политикой в её текущем виде.', pendingSome: 'Изменения ещё не применены:', openDeploys: 'К развёртываниям',
  live: 'Живой просмотр', paused: 'Пауза', pause: 'Приостановить', resume: 'Продолжить', newRows: (n) => `${n} ${plural(n, 'новая запись', 'новые записи', 'новых записей')}`,
  liveHint: 'Новые записи появляются сверху по мере поступления (проверка каждые 5 секунд).',
}

export default dash
