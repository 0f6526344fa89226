/**
 * The portals as a filter or a choice (few: one a site or SSID).
 */
import { Select, type SelectProps } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { api } from '../api/client'

export function PortalSelect(props: Omit<SelectProps, 'data'>) {
  const list = useQuery({ queryKey: ['portal', 'portals', 'list'], queryFn: () => api.get('/api/v1/captive-portal/portals', { query: { page: 1, per_page: 100, sort_by: 'name', sort_order: 'asc' } }), staleTime: 30_000 })
  return <Select {...props} data={(list.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))} />
}
