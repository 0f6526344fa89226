/** Data shared by the identity and administration screens: the types (users, groups, roles, audit entries, settings) and the pickers' full lists. */
import { useQuery } from '@tanstack/react-query'
import { api, ApiError } from '../api/client'
import type { components } from '../generated/api'

type S = components['schemas']
export type User = S['UserResponse']
export type UserCreate = S['UserCreate']
export type UserUpdate = S['UserUpdate']
export type UserGroup = S['UserGroupResponse']
export type Role = S['RoleResponse']
export type AuditEntry = S['AuditEntryResponse']
export type Setting = S['SettingResponse']

/** Every page of a list at the API's maximum (the pickers need them all; a deployment has tens, not thousands). */
async function all<T>(get: (page: number) => Promise<{ items: T[]; pages: number }>): Promise<T[]> {
  const out: T[] = []
  for (let page = 1; ; page++) {
    const r = await get(page)
    out.push(...r.items)
    if (page >= r.pages) return out
  }
}

export const useAllUserGroups = (enabled = true) =>
  useQuery({
    queryKey: ['user-groups', 'all'],
    enabled,
    queryFn: () => all((page) => api.get('/api/v1/user-groups', { query: { page, per_page: 100, sort_by: 'name', sort_order: 'asc' } })),
  })

export const useAllRoles = (enabled = true) =>
  useQuery({
    queryKey: ['roles', 'all'],
    enabled,
    queryFn: () => all((page) => api.get('/api/v1/roles', { query: { page, per_page: 100, sort_by: 'name', sort_order: 'asc' } })),
  })

/** Every permission by plugin, described in the screen's language (the query key carries it: switching asks again). */
export const useRbacSchema = (language: string, enabled = true) =>
  useQuery({ queryKey: ['rbac-schema', language], enabled, queryFn: () => api.get('/api/v1/rbac/schema'), staleTime: 300_000 })

/** The ids of a list as Select/MultiSelect options, with the names. */
export const options = (xs: { id: string; name: string }[] | undefined) => (xs ?? []).map((x) => ({ value: x.id, label: x.name }))

/** An `field[i]` error of the API (`role_ids[2]`) belongs to the list input `field`. */
export function listField(field: string | null | undefined): string | null {
  return field ? field.replace(/\[\d+\]$/, '') : null
}

/** The error with a list item's field (`group_ids[1]`) moved to the list's input (`group_ids`), which shows it. */
export function atListField(error: unknown): unknown {
  if (!(error instanceof ApiError) || !error.field || listField(error.field) === error.field) return error
  return new ApiError(error.status, error.message, error.code, listField(error.field), error.retryAfter)
}
