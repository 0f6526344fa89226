/**
 * Typed service references (Backstage's `createServiceRef`). A plugin that
 * offers a service exports its ref from index.ts; a consumer names the ref in
 * its `deps` map and receives the implementation, typed, in `init`. Nobody
 * looks a service up by a string.
 */
export interface ServiceRef<T> {
  readonly id: string
  /** Set by `optional(ref)`: the service may be absent (its plugin is not loaded). */
  readonly optional?: boolean
  /** Phantom field carrying the service type; never set at run time. */
  readonly __type?: T
}

/** A ref named in `deps` through `optional(ref)`: resolved to the service, or to undefined when its plugin is not loaded. */
export interface OptionalServiceRef<T> extends ServiceRef<T> {
  readonly optional: true
}

export function createServiceRef<T>(opts: { id: string }): ServiceRef<T> {
  if (!/^[a-z][a-z0-9_-]*(\.[a-zA-Z][a-zA-Z0-9_]*)+$/.test(opts.id)) {
    throw new Error(`service ref id "${opts.id}" must be "<plugin-id>.<name>"`)
  }
  return Object.freeze({ id: opts.id })
}

/**
 * A dependency the plugin works without: name the owner in `optionalDependsOn`
 * and the ref in `deps` as `optional(ref)`; `init` then receives the service,
 * or undefined when the owner is not part of the edition.
 */
export const optional = <T>(ref: ServiceRef<T>): OptionalServiceRef<T> => Object.freeze({ id: ref.id, optional: true as const })

/** The plugin id that owns a ref: the part before the first dot. */
export const refOwner = (ref: ServiceRef<unknown>): string => ref.id.split('.')[0]

export type ServiceOf<R> = R extends OptionalServiceRef<infer T> ? T | undefined : R extends ServiceRef<infer T> ? T : never
export type ResolvedDeps<D extends Record<string, ServiceRef<unknown>>> = { [K in keyof D]: ServiceOf<D[K]> }

/** A service a plugin provides from `init`, bound to its ref. */
export interface ProvidedService<T = unknown> {
  ref: ServiceRef<T>
  implementation: T
}

export const provide = <T>(ref: ServiceRef<T>, implementation: T): ProvidedService<T> => ({ ref, implementation })
