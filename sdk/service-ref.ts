/**
 * Typed service references (Backstage's `createServiceRef`). A plugin that
 * offers a service exports its ref from index.ts; a consumer names the ref in
 * its `deps` map and receives the implementation, typed, in `init`. Nobody
 * looks a service up by a string.
 */
export interface ServiceRef<T> {
  readonly id: string
  /** Phantom field carrying the service type; never set at run time. */
  readonly __type?: T
}

export function createServiceRef<T>(opts: { id: string }): ServiceRef<T> {
  if (!/^[a-z][a-z0-9_-]*(\.[a-zA-Z][a-zA-Z0-9_]*)+$/.test(opts.id)) {
    throw new Error(`service ref id "${opts.id}" must be "<plugin-id>.<name>"`)
  }
  return Object.freeze({ id: opts.id })
}

/** The plugin id that owns a ref: the part before the first dot. */
export const refOwner = (ref: ServiceRef<unknown>): string => ref.id.split('.')[0]

export type ServiceOf<R> = R extends ServiceRef<infer T> ? T : never
export type ResolvedDeps<D extends Record<string, ServiceRef<unknown>>> = { [K in keyof D]: ServiceOf<D[K]> }

/** A service a plugin provides from `init`, bound to its ref. */
export interface ProvidedService<T = unknown> {
  ref: ServiceRef<T>
  implementation: T
}

export const provide = <T>(ref: ServiceRef<T>, implementation: T): ProvidedService<T> => ({ ref, implementation })
