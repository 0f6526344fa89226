/**
 * The root Awilix container. Services are registered under their ref's id;
 * plugins never see the container: they name refs in `deps` and receive the
 * implementations. A request gets a child scope (see http/mount.ts).
 */
import { asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix'
import { refOwner, type ResolvedDeps, type ServiceRef } from '../sdk/index.js'
import { BootError } from './boot-error.js'

export class ServiceRegistry {
  readonly container: AwilixContainer = createContainer({ injectionMode: InjectionMode.PROXY, strict: true })

  provide<T>(ref: ServiceRef<T>, impl: T, by: string): void {
    if (this.container.hasRegistration(ref.id)) throw new BootError('SERVICE_DUPLICATE', `service ${ref.id} is provided twice (last by ${by})`)
    this.container.register(ref.id, asValue(impl))
  }

  /** Resolves a plugin's deps map; every ref must be a core service or belong to a declared dependency. */
  resolveDeps<D extends Record<string, ServiceRef<unknown>>>(pluginId: string, dependsOn: string[], deps: D): ResolvedDeps<D> {
    const out: Record<string, unknown> = {}
    for (const [name, ref] of Object.entries(deps)) {
      const owner = refOwner(ref)
      if (owner !== 'core' && owner !== pluginId && !dependsOn.includes(owner)) {
        throw new BootError('PLUGIN_DEPENDENCY_MISSING', `plugin ${pluginId} uses service ${ref.id} of plugin ${owner} without listing ${owner} in dependsOn`)
      }
      if (!this.container.hasRegistration(ref.id)) throw new BootError('SERVICE_MISSING', `plugin ${pluginId} needs service ${ref.id}, which no loaded plugin provides`)
      out[name] = this.container.resolve(ref.id)
    }
    return out as ResolvedDeps<D>
  }
}
