/**
 * The lists the rule forms, the policy tests, the endpoint form and the TACACS+
 * profile form pick from, searched on the server (components/SearchSelect):
 * users, user groups, devices, TACACS+, RADIUS and authorization profiles,
 * endpoint groups, command sets. Device groups are a tree the pickers show
 * whole (groups-data).
 */
import { api } from '../api/client'
import type { Option, PickerSource } from '../components/SearchSelect'

/** One page of matches, by name: enough to choose from while typing narrows it. */
const page = { page: 1, per_page: 50, sort_order: 'asc' as const }
const search = (text: string) => (text ? { search: text } : {})
/**
 * A picker over one of the API's lists: `list` and `one` are the source's own typed calls, `label`
 * names an entry, `sortBy` orders the page (by name).
 */
function listPicker<T extends { id: string }, S extends string>(key: readonly string[], sortBy: S, list: (query: typeof page & { search?: string; sort_by: S }) => Promise<{ items: T[] }>, one: (id: string) => Promise<T>, label: (x: T) => string): PickerSource {
  const option = (x: T): Option => ({ value: x.id, label: label(x) })
  return { key, search: async (text) => (await list({ ...page, ...search(text), sort_by: sortBy })).items.map(option), byId: async (id) => option(await one(id)) }
}
type Named = { id: string; name: string }
const byName = (key: readonly string[], list: (query: typeof page & { search?: string; sort_by: 'name' }) => Promise<{ items: Named[] }>, one: (id: string) => Promise<Named>) => listPicker(key, 'name', list, one, (x) => x.name)

export const userPicker = listPicker(['users'], 'username', (query) => api.get('/api/v1/users', { query }), (id) => api.get('/api/v1/users/{user_id}', { params: { user_id: id } }), (u) => u.username)
export const devicePicker = listPicker(['devices'], 'name', (query) => api.get('/api/v1/devices', { query }), (id) => api.get('/api/v1/devices/{device_id}', { params: { device_id: id } }), (d) => `${d.name} (${d.address})`)
export const tacacsProfilePicker = byName(['tacacs-profiles'], (query) => api.get('/api/v1/tacacs/profiles', { query }), (id) => api.get('/api/v1/tacacs/profiles/{profile_id}', { params: { profile_id: id } }))
export const radiusProfilePicker = byName(['radius-profiles'], (query) => api.get('/api/v1/radius/profiles', { query }), (id) => api.get('/api/v1/radius/profiles/{profile_id}', { params: { profile_id: id } }))
export const endpointGroupPicker = byName(['nac', 'endpoint-groups'], (query) => api.get('/api/v1/nac/endpoint-groups', { query }), (id) => api.get('/api/v1/nac/endpoint-groups/{endpoint_group_id}', { params: { endpoint_group_id: id } }))
export const authorizationProfilePicker = byName(['nac', 'profiles'], (query) => api.get('/api/v1/nac/authorization-profiles', { query }), (id) => api.get('/api/v1/nac/authorization-profiles/{profile_id}', { params: { profile_id: id } }))
export const commandSetPicker = byName(['tacacs-command-sets'], (query) => api.get('/api/v1/tacacs/command-sets', { query }), (id) => api.get('/api/v1/tacacs/command-sets/{command_set_id}', { params: { command_set_id: id } }))
export const userGroupPicker = byName(['user-groups'], (query) => api.get('/api/v1/user-groups', { query }), (id) => api.get('/api/v1/user-groups/{group_id}', { params: { group_id: id } }))
