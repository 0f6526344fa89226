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

  /** `loaded`: the ids of the plugins in this edition, so an optional dependency that is absent resolves to undefined. */
  constructor(private readonly loaded: ReadonlySet<string> = new Set()) {}

  provide<T>(ref: ServiceRef<T>, impl: T, by: string): void {
    if (this.container.hasRegistration(ref.id)) throw new BootError('SERVICE_DUPLICATE', `service ${ref.id} is provided twice (last by ${by})`)
    this.container.register(ref.id, asValue(impl))
  }

  /**
   * Resolves a plugin's deps map; every ref must be a core service or belong to a declared
   * dependency. A ref given as `optional(ref)` may belong to an `optionalDependsOn` plugin and
   * resolves to undefined when that plugin is not loaded; a plain ref to such a plugin is refused
   * at boot, since it would fail in the editions without it.
   */
  resolveDeps<D extends Record<string, ServiceRef<unknown>>>(pluginId: string, manifest: { dependsOn?: string[]; optionalDependsOn?: string[] }, deps: D): ResolvedDeps<D> {
    const required = manifest.dependsOn ?? []
    const optional = manifest.optionalDependsOn ?? []
    const out: Record<string, unknown> = {}
    for (const [name, ref] of Object.entries(deps)) {
      const owner = refOwner(ref)
      const own = owner === 'core' || owner === pluginId
      if (!own && !required.includes(owner) && !(ref.optional && optional.includes(owner))) {
        throw new BootError(
          'PLUGIN_DEPENDENCY_MISSING',
          optional.includes(owner)
            ? `plugin ${pluginId} uses service ${ref.id} of its optional dependency ${owner} as if it were always there: name it optional(ref) in deps`
            : `plugin ${pluginId} uses service ${ref.id} of plugin ${owner} without listing ${owner} in ${ref.optional ? 'dependsOn or optionalDependsOn' : 'dependsOn'}`,
        )
      }
      if (ref.optional && !own && !this.loaded.has(owner)) {
        out[name] = undefined
        continue
      }
      if (!this.container.hasRegistration(ref.id)) throw new BootError('SERVICE_MISSING', `plugin ${pluginId} needs service ${ref.id}, which no loaded plugin provides`)
      out[name] = this.container.resolve(ref.id)
    }
    return out as ResolvedDeps<D>
  }
}
