/**
 * What the NAC screens pick from and show: endpoint groups, authorization
 * profiles, users (owners), user groups and device groups (rule conditions),
 * as Select options (the first 100 by name of each; the pickers search within
 * them), and the NAC schemas by name.
 */
import { useQuery } from '@tanstack/react-query'
import { api } from '../api/client'
import type { components } from '../generated/api'
import { groupOptions, useAllGroups } from './groups-data'

type S = components['schemas']
export type Endpoint = S['EndpointResponse']
export type EndpointGroup = S['EndpointGroupResponse']
export type AuthProfile = S['AuthorizationProfileResponse']
export type NacRule = S['NacPolicyRuleResponse']
export type NacCondition = S['NacConditionInput']
export type NacTestResult = S['NacPolicyTestResponse']

type Option = { value: string; label: string }
const first = { page: 1, per_page: 100, sort_by: 'name' as const, sort_order: 'asc' as const }

export const useEndpointGroupOptions = () =>
  useQuery({
    queryKey: ['nac', 'endpoint-groups', 'options'],
    queryFn: async () => (await api.get('/api/v1/nac/endpoint-groups', { query: first })).items.map((g): Option => ({ value: g.id, label: g.name })),
  })

export const useProfileOptions = (enabled = true) =>
  useQuery({
    queryKey: ['nac', 'profiles', 'options'],
    queryFn: async () => (await api.get('/api/v1/nac/authorization-profiles', { query: first })).items.map((p): Option => ({ value: p.id, label: p.name })),
    enabled,
  })

export const useUserOptions = (enabled = true) =>
  useQuery({
    queryKey: ['users', 'options'],
    queryFn: async () => (await api.get('/api/v1/users', { query: { page: 1, per_page: 100, sort_by: 'username', sort_order: 'asc' } })).items.map((u): Option => ({ value: u.id, label: u.username })),
    enabled,
  })

/** What a rule's conditions name: user groups, endpoint groups, device groups (the inventory may be absent: none then). */
export function useConditionPickers() {
  const userGroups = useQuery({ queryKey: ['user-groups', 'options'], queryFn: async () => (await api.get('/api/v1/user-groups', { query: first })).items.map((g): Option => ({ value: g.id, label: g.name })) })
  const endpointGroups = useEndpointGroupOptions()
  const deviceGroups = useAllGroups()
  const devices = useQuery({ queryKey: ['devices', 'options'], queryFn: async () => (await api.get('/api/v1/devices', { query: first })).items.map((d): Option => ({ value: d.id, label: `${d.name} (${d.address})` })), retry: false })
  return {
    user_group: userGroups.data ?? [],
    endpoint_group: endpointGroups.data ?? [],
    device_group: groupOptions(deviceGroups.data ?? []),
    devices: devices.data ?? [],
  }
}
