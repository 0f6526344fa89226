import { useQuery } from '@tanstack/react-query'
import { api } from '../api/client'
import type { DeviceGroup } from '../api/types'

/** Every device group (the tree and the pickers need them all), page by page at the API's maximum. */
export function useAllGroups(enabled = true) {
  return useQuery({
    queryKey: ['device-groups', 'all'],
    enabled,
    queryFn: async () => {
      const all: DeviceGroup[] = []
      for (let page = 1; ; page++) {
        const r = await api.get('/api/v1/device-groups', { query: { page, per_page: 100, sort_by: 'name', sort_order: 'asc' } })
        all.push(...r.items)
        if (page >= r.pages) return all
      }
    },
  })
}

/** Depth-first order with each group's depth: parents before children, siblings by name. */
export function treeOrder(groups: DeviceGroup[]): { group: DeviceGroup; depth: number }[] {
  const byParent = new Map<string | null, DeviceGroup[]>()
  const ids = new Set(groups.map((g) => g.id))
  for (const g of groups) {
    const p = g.parent_id && ids.has(g.parent_id) ? g.parent_id : null
    byParent.set(p, [...(byParent.get(p) ?? []), g])
  }
  const out: { group: DeviceGroup; depth: number }[] = []
  const walk = (parent: string | null, depth: number) => {
    for (const g of (byParent.get(parent) ?? []).sort((a, b) => a.name.localeCompare(b.name))) {
      out.push({ group: g, depth })
      walk(g.id, depth + 1)
    }
  }
  walk(null, 0)
  return out
}

/** Options of a group picker, indented by depth. */
export const groupOptions = (groups: DeviceGroup[], exclude?: string) =>
  treeOrder(groups)
    .filter((x) => x.group.id !== exclude)
    .map((x) => ({ value: x.group.id, label: `${'\u2003'.repeat(x.depth)}${x.group.name}` }))
