/**
 * What the loaded plugins contribute, checked at boot: every route unique by
 * method and path, every permission declared once and every route's
 * permission declared by someone.
 */
import { AUTHENTICATED, PUBLIC, type LocalizedText, type RouteDefinition, type ConfigRenderer, type WebAssets } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import { fullPath } from '../http/mount.js'

export interface OwnedRoute {
  owner: string
  route: RouteDefinition
}

export interface PermissionEntry {
  owner: string
  name: string
  description: LocalizedText
}

const PATH = /^\/([A-Za-z0-9._-]+|\{[a-z_][a-z0-9_]*\})(\/([A-Za-z0-9._-]+|\{[a-z_][a-z0-9_]*\}))*$|^\/$/

export class ContributionRegistry {
  readonly routes: OwnedRoute[] = []
  readonly permissions = new Map<string, PermissionEntry>()
  readonly renderers: { owner: string; renderer: ConfigRenderer }[] = []
  /** Plugins' browser files (the console), asked in load order for what no route answers. */
  readonly web: { owner: string; web: WebAssets }[] = []
  private readonly routeKeys = new Map<string, string>()

  addPermissions(owner: string, perms: Record<string, LocalizedText>): void {
    for (const [name, description] of Object.entries(perms)) {
      const prev = this.permissions.get(name)
      if (prev) throw new BootError('PERMISSION_DUPLICATE', `permission ${name} is declared by both ${prev.owner} and ${owner}`)
      if (!/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$/.test(name)) throw new BootError('PLUGIN_INVALID', `permission name "${name}" of ${owner} must be dotted lower case`)
      this.permissions.set(name, { owner, name, description })
    }
  }

  addRoute(owner: string, route: RouteDefinition): void {
    if (!PATH.test(route.path) || typeof route.handler !== 'function' || !route.schema?.response) {
      throw new BootError('ROUTE_INVALID', `route ${route.method} ${route.path} of ${owner} is malformed (path, handler and response schema are required)`)
    }
    // `{a}` and `{b}` in the same place collide: the router could not tell them apart; nor can it
    // `/Foo` and `/foo` (fixed segments match whatever their case, see http/router.ts).
    const key = `${route.method} ${fullPath(route).replace(/\{[^}]+\}/g, '{}').toLowerCase()}`
    const prev = this.routeKeys.get(key)
    if (prev) throw new BootError('ROUTE_DUPLICATE', `route ${route.method} ${fullPath(route)} is registered by both ${prev} and ${owner}`)
    this.routeKeys.set(key, owner)
    this.routes.push({ owner, route })
  }

  addRenderer(owner: string, renderer: ConfigRenderer): void {
    if (this.renderers.some((r) => r.renderer.id === renderer.id)) throw new BootError('PLUGIN_INVALID', `renderer ${renderer.id} is registered twice`)
    this.renderers.push({ owner, renderer })
  }

  /** Every gated route names a declared permission. */
  verifyPermissions(): void {
    for (const { owner, route } of this.routes) {
      if (route.permission === PUBLIC || route.permission === AUTHENTICATED) continue
      if (!this.permissions.has(route.permission)) {
        throw new BootError('PERMISSION_UNDECLARED', `route ${route.method} ${fullPath(route)} of ${owner} is gated by ${String(route.permission)}, which no plugin declares`)
      }
    }
  }
}
