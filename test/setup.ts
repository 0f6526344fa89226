import { stopSharedPostgres } from './kit/shared.js'

/** Mocha root hooks: the shared PostgreSQL cluster goes away with the run. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    // Stopping the cluster and removing its folder can take long on a loaded machine:
    // a slow teardown must not turn a green run red.
    this.timeout(300_000)
    await stopSharedPostgres()
  },
}
