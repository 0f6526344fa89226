/**
 * What the rule form and the policy test pick from: users, user groups,
 * devices, device groups, profiles, as Select options (the first 100 by name
 * of each; the pickers search within them).
 */
import { useQuery } from '@tanstack/react-query'
import { api } from '../api/client'
import { groupOptions, useAllGroups } from './groups-data'

type Option = { value: string; label: string }
const first = { page: 1, per_page: 100, sort_order: 'asc' as const }

export function usePickers() {
  const users = useQuery({ queryKey: ['users', 'options'], queryFn: async () => (await api.get('/api/v1/users', { query: { ...first, sort_by: 'username' } })).items.map((u): Option => ({ value: u.id, label: u.username })) })
  const userGroups = useQuery({ queryKey: ['user-groups', 'options'], queryFn: async () => (await api.get('/api/v1/user-groups', { query: { ...first, sort_by: 'name' } })).items.map((g): Option => ({ value: g.id, label: g.name })) })
  const devices = useQuery({ queryKey: ['devices', 'options'], queryFn: async () => (await api.get('/api/v1/devices', { query: { ...first, sort_by: 'name' } })).items.map((d): Option => ({ value: d.id, label: `${d.name} (${d.address})` })) })
  const groups = useAllGroups()
  const tacacs = useQuery({ queryKey: ['tacacs-profiles', 'options'], queryFn: async () => (await api.get('/api/v1/tacacs/profiles', { query: { ...first, sort_by: 'name' } })).items.map((p): Option => ({ value: p.id, label: p.name })) })
  const radius = useQuery({ queryKey: ['radius-profiles', 'options'], queryFn: async () => (await api.get('/api/v1/radius/profiles', { query: { ...first, sort_by: 'name' } })).items.map((p): Option => ({ value: p.id, label: p.name })) })
  return {
    users: users.data ?? [],
    userGroups: userGroups.data ?? [],
    devices: devices.data ?? [],
    deviceGroups: groupOptions(groups.data ?? []),
    tacacs: tacacs.data ?? [],
    radius: radius.data ?? [],
  }
}
