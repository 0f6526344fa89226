import { stopSharedPostgres } from './kit/shared.js'

/** Mocha root hooks: the shared PostgreSQL cluster goes away with the run. */
export const mochaHooks = {
  async afterAll() {
    await stopSharedPostgres()
  },
}
