/**
 * The lists the rule forms, the policy tests, the endpoint form and the TACACS+
 * profile form pick from, searched on the server (components/SearchSelect):
 * users, user groups, devices, TACACS+, RADIUS and authorization profiles,
 * endpoint groups, command sets. Device
 * groups are a tree the pickers show whole (groups-data).
 */
import { api } from '../api/client'
import type { Option, PickerSource } from '../components/SearchSelect'

/** One page of matches, by name: enough to choose from while typing narrows it. */
const page = { page: 1, per_page: 50, sort_order: 'asc' as const }
const search = (text: string) => (text ? { search: text } : {})
const named = (x: { id: string; name: string }): Option => ({ value: x.id, label: x.name })

export const userPicker: PickerSource = {
  key: ['users'],
  search: async (text) => (await api.get('/api/v1/users', { query: { ...page, ...search(text), sort_by: 'username' } })).items.map((u) => ({ value: u.id, label: u.username })),
  byId: async (id) => {
    const u = await api.get('/api/v1/users/{user_id}', { params: { user_id: id } })
    return { value: u.id, label: u.username }
  },
}

export const userGroupPicker: PickerSource = {
  key: ['user-groups'],
  search: async (text) => (await api.get('/api/v1/user-groups', { query: { ...page, ...search(text), sort_by: 'name' } })).items.map(named),
  byId: async (id) => named(await api.get('/api/v1/user-groups/{group_id}', { params: { group_id: id } })),
}

const device = (d: { id: string; name: string; address: string }): Option => ({ value: d.id, label: `${d.name} (${d.address})` })
export const devicePicker: PickerSource = {
  key: ['devices'],
  search: async (text) => (await api.get('/api/v1/devices', { query: { ...page, ...search(text), sort_by: 'name' } })).items.map(device),
  byId: async (id) => device(await api.get('/api/v1/devices/{device_id}', { params: { device_id: id } })),
}

export const tacacsProfilePicker: PickerSource = {
  key: ['tacacs-profiles'],
  search: async (text) => (await api.get('/api/v1/tacacs/profiles', { query: { ...page, ...search(text), sort_by: 'name' } })).items.map(named),
  byId: async (id) => named(await api.get('/api/v1/tacacs/profiles/{profile_id}', { params: { profile_id: id } })),
}

export const radiusProfilePicker: PickerSource = {
  key: ['radius-profiles'],
  search: async (text) => (await api.get('/api/v1/radius/profiles', { query: { ...page, ...search(text), sort_by: 'name' } })).items.map(named),
  byId: async (id) => named(await api.get('/api/v1/radius/profiles/{profile_id}', { params: { profile_id: id } })),
}

export const endpointGroupPicker: PickerSource = {
  key: ['nac', 'endpoint-groups'],
  search: async (text) => (await api.get('/api/v1/nac/endpoint-groups', { query: { ...page, ...search(text), sort_by: 'name' } })).items.map(named),
  byId: async (id) => named(await api.get('/api/v1/nac/endpoint-groups/{endpoint_group_id}', { params: { endpoint_group_id: id } })),
}

export const authorizationProfilePicker: PickerSource = {
  key: ['nac', 'profiles'],
  search: async (text) => (await api.get('/api/v1/nac/authorization-profiles', { query: { ...page, ...search(text), sort_by: 'name' } })).items.map(named),
  byId: async (id) => named(await api.get('/api/v1/nac/authorization-profiles/{profile_id}', { params: { profile_id: id } })),
}

export const commandSetPicker: PickerSource = {
  key: ['tacacs-command-sets'],
  search: async (text) => (await api.get('/api/v1/tacacs/command-sets', { query: { ...page, ...search(text), sort_by: 'name' } })).items.map(named),
  byId: async (id) => named(await api.get('/api/v1/tacacs/command-sets/{command_set_id}', { params: { command_set_id: id } })),
}
