/** Russian for what only assistive technology hears: ru.ts's `a11y` (every key of a11y-en.ts). */
import type { A11yMessages } from './a11y-en'

const a11y: A11yMessages = {
  groupLevel: (level) => `, уровень ${level}`,
  countLink: (count, where) => `${count}: ${where}`,
}

export default a11y
