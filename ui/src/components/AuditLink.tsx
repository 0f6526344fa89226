/** "Audit trail": the audit screen filtered to one record (its type and id in the URL), for a holder of `audit.read`. */
import { Anchor } from '@mantine/core'
import { useAuth } from '../auth'
import { useI18n } from '../i18n'
import { Link } from '../router'

export function AuditLink({ type, id }: { type: string; id: string }) {
  const { t } = useI18n()
  const auth = useAuth()
  if (!auth.can('audit.read')) return null
  return <Anchor component={Link} href={`/audit?resource_type=${encodeURIComponent(type)}&resource_id=${encodeURIComponent(id)}`} size="sm">{t.admin.audit.ofThis}</Anchor>
}
