/** Russian for a refused deploy: ru.ts's `deployFailure` (every key of deploy-failure-en.ts). */
import type { DeployFailureMessages } from './deploy-failure-en'

const deployFailure: DeployFailureMessages = {
  reason: {
    check_failed: (d) => `Проверка ${d} не пройдена`,
    check_skipped: (d) => `Проверку ${d} не удалось выполнить`,
    not_activated: (d, by) => `Не активирован: в том же развёртывании не прошла проверка ${by}; разверните ${d} отдельно, чтобы активировать его`,
    interrupted: () => 'Прервано до активации',
  },
  deployOnly: (d) => `Развернуть только ${d}`,
  suggestion: (ds, by) => `Развёртывание остановила только проверка ${by}; ${ds} можно развернуть отдельно.`,
  outputOf: (lines) => `строк: ${lines}`,
  dashboardReason: { check_failed: 'проверка не пройдена', check_skipped: 'проверку не удалось выполнить', not_activated: 'не активирован (не прошла другая проверка)', interrupted: 'прервано', reload: 'перезагрузка не удалась' },
}

export default deployFailure
