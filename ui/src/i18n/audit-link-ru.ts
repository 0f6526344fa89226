/** Russian for the link beside a kept name in an audit entry: ru.ts's `auditLink` (every key of audit-link-en.ts). */
import type { AuditLinkMessages } from './audit-link-en'

const auditLink: AuditLinkMessages = {
  openObject: 'Открыть',
}
export default auditLink
