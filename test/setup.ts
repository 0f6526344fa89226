import { argon2Calls, memoizeArgon2 } from './kit/argon2-memo.js'
import { stopSharedPostgres } from './kit/shared.js'

memoizeArgon2()
// The reporter prints them with the slowest files (test/kit/file-times-reporter.cjs).
;(globalThis as { portcullisArgon2Calls?: typeof argon2Calls }).portcullisArgon2Calls = argon2Calls

/** Mocha root hooks: the shared PostgreSQL cluster goes away with the run. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    // Stopping the cluster and removing its folder can take long on a loaded machine:
    // a slow teardown must not turn a green run red.
    this.timeout(300_000)
    await stopSharedPostgres()
  },
}
