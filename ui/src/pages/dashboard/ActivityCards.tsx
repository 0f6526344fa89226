/**
 * The dashboard's activity cards, in a chunk of their own (App loads the dashboard with the first
 * screen; these load after it): authentications by result, the top failing users and devices, live
 * NAC sessions, certificates expiring, changes not yet deployed. A card of a plugin the server does
 * not run is left out; a card the user may not read says so.
 */
import { SimpleGrid, Stack } from '@mantine/core'
import { usePluginRuns } from '../../auth'
import { AuthActivityCard } from './AuthActivityCard'
import { ExpiringCertificatesCard } from './ExpiringCertificatesCard'
import { NacSessionsCard } from './NacSessionsCard'
import { PendingChangesCard } from './PendingChangesCard'
import { TopFailuresCard } from './TopFailuresCard'

export default function ActivityCards() {
  const runs = usePluginRuns()
  return (
    <Stack>
      {runs('aaa-logs') && <AuthActivityCard />}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {runs('aaa-logs') && <TopFailuresCard />}
        {runs('aaa-policy') && <PendingChangesCard />}
        {runs('nac') && <NacSessionsCard />}
        {runs('pki') && <ExpiringCertificatesCard />}
      </SimpleGrid>
    </Stack>
  )
}
