/** Русский текст вопроса при выходе, когда на странице есть несохранённые изменения (components/LeaveGuard.ts): `guard` в ru.ts. */
import type { GuardMessages } from './guard-en'

const guard: GuardMessages = {
  signOutTitle: 'Выйти без сохранения?',
  signOutMessage: (sections: string) => `Настройки изменены и не сохранены: ${sections}. При выходе эти изменения пропадут.`,
  signOut: 'Выйти без сохранения',
}

export default guard
