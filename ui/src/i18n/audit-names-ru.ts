/** Russian for the audit trail's kept names and readable reorders: ru.ts's `auditNames` (every key of audit-names-en.ts). */
import type { AuditNamesMessages } from './audit-names-en'

const auditNames: AuditNamesMessages = {
  nameAtEvent: 'Имя на момент события',
  openList: 'Открыть список',
  order: 'Порядок проверки',
  orderBefore: 'До',
  orderAfter: 'После',
  moved: (name, from, to) => `Правило «${name}» перемещено с позиции ${from} на ${to}`,
  reordered: (n) => `Правил, сменивших позицию: ${n}`,
}
export default auditNames
