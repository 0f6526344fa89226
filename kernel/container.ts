/**
 * The root Awilix container. Services are registered under their ref's id;
 * plugins never see the container: they name refs in `deps` and receive the
 * implementations. A request gets a child scope (see http/mount.ts).
 */
import { asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix'
import { refOwner, requestServices, type Actor, type Logger, type RequestTransaction, type ResolvedDeps, type ServiceRef } from '../sdk/index.js'
import { BootError } from './boot-error.js'

/** What one request registers in its scope (see `requestServices`). */
export interface RequestValues {
  actor: Actor | null
  requestId: string
  log: Logger
  transaction: RequestTransaction
}

/** A request's view of the container: what its route's owner may resolve. */
export interface RequestScope {
  resolve<T>(ref: ServiceRef<T>): T
  dispose(): Promise<void>
}

const REQUEST_IDS: ReadonlySet<string> = new Set(Object.values(requestServices).map((r) => r.id))

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

  /** Per plugin, the refs it named in `deps`: what its routes may `req.resolve`, besides the request's own services. */
  private readonly granted = new Map<string, ReadonlySet<string>>()

  /** Records a plugin's `deps` (called once, when the plugin is initialized). */
  grant(pluginId: string, deps: Record<string, ServiceRef<unknown>>): void {
    this.granted.set(pluginId, new Set(Object.values(deps).map((r) => r.id)))
  }

  /**
   * The scope of one request, Awilix's way: a child of the root container
   * holding the request's services (actor, request id, logger, transaction),
   * made on the first `resolve` (most requests resolve nothing, and a scope
   * costs more than the rest of the gate) and disposed when the request ends.
   * A plugin's route resolves only what the plugin named in `deps`, plus the
   * request's services, so `req.resolve` is no way around the boot-time
   * dependency checks; the kernel's own routes may resolve any service.
   */
  requestScope(owner: string, values: RequestValues): RequestScope {
    let scope: AwilixContainer | null = null
    const granted = this.granted.get(owner)
    return {
      resolve: <T>(ref: ServiceRef<T>): T => {
        if (owner !== 'kernel' && !REQUEST_IDS.has(ref.id) && !granted?.has(ref.id)) {
          throw new Error(`plugin ${owner} resolves service ${ref.id} in a request without naming it in its deps: add it to definePlugin({ deps })`)
        }
        if (!scope) {
          scope = this.container.createScope()
          scope.register({
            [requestServices.actor.id]: asValue(values.actor),
            [requestServices.requestId.id]: asValue(values.requestId),
            [requestServices.logger.id]: asValue(values.log),
            [requestServices.transaction.id]: asValue(values.transaction),
          })
        }
        return scope.resolve<T>(ref.id)
      },
      dispose: async () => {
        if (scope) await scope.dispose()
      },
    }
  }
}
