/** Russian for the console's one confirmation dialog: ru.ts's `confirm` (every key of confirm-en.ts). */
import type { ConfirmMessages } from './confirm-en'

const confirm: ConfirmMessages = {
  touches: 'Что это затронет',
  title: (action, name) => `${action}: ${name}`,
  deployTitle: (d) => `Развернуть ${d}`,
  deployAllTitle: 'Развернуть все демоны',
  deployQuestion: 'Проверить, записать и перезагрузить демоны с показанной конфигурацией? Работающие демоны перейдут на неё.',
  replaces: (d, r) => (r ? `${d}: заменяет активный выпуск ${r}` : `${d}: первый выпуск`),
  rollbackTitle: (d, r) => `Откатить ${d} к ${r}`,
  rollbackReplaces: (d, r) => (r ? `${d}: активный выпуск ${r} будет заменён` : `${d}: сейчас нет активного выпуска`),
  rollbackBecomes: (r) => `Снова станет активным: ${r}`,
  session: (mac) => `Сессия ${mac}`,
  nas: (n) => `На NAS ${n}`,
  user: (u) => `Пользователь ${u}`,
}

export default confirm
