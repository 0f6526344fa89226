/** Russian for quick-search-en.ts: ru.ts's `find` (every key). */
import type { FindMessages } from './quick-search-en'

const find: FindMessages = {
  kinds: {
    deviceGroup: 'Группа устройств', userGroup: 'Группа пользователей', aaaRule: 'Правило политики AAA', nacRule: 'Правило политики NAC',
    certificate: 'Сертификат', guest: 'Гость', nacSession: 'Сессия NAC',
  },
  sessionState: { live: 'активна', stale: 'без обновлений', ended: 'завершена' },
  disabled: 'отключено',
  placeholder: 'Экран, устройство, группа, пользователь, правило, сертификат, гость, MAC…',
  addToGroup: 'Добавить в группу',
  add: 'Добавить',
  addTitle: (n) => `Добавить выбранных пользователей (${n}) в группу`,
  addHint: 'Прежние группы каждого пользователя сохраняются.',
  removeFromGroup: 'Убрать из группы',
  remove: 'Убрать',
  removeTitle: (n) => `Убрать выбранных пользователей (${n}) из группы`,
  removeHint: 'Снимается только эта группа; остальные членства сохраняются.',
}

export default find
