/**
 * Second factor for sign-in, TOTP first. The plugin registers a second factor
 * with identity, so a login of an enrolled user answers `mfa_required`; the
 * `mfa` token is then redeemed at POST /api/v1/mfa/verify. Enrollment is by an
 * emailed setup link; the RADIUS/NAC daemons check codes through the internal
 * surface. See docs/mfa.md.
 */
import { consoleServiceRef, coreServices, definePlugin, identityServices, optional, provide, uuidArray } from '../../sdk/index.js'
import { mfaServiceRef } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { mfaPermissions } from './permissions.js'
import { mfaRoutes } from './routes/index.js'
import { DeviceChallenges } from './services/device-challenge.js'
import { RecoveryCodes } from './services/recovery-codes.js'
import { TokenBudget } from './services/token-budget.js'
import { TotpStore } from './services/totp-store.js'
import { createPushFactor } from './services/push/factor.js'
import { mfaInternalKey, mfaInternalUrl, mfaPushPublicUrl, mfaPushServiceKey, mfaPushServiceUrl, mfaPushTimeout, mfaServerOptions, mfaSettings } from './settings.js'
import { mfaTables } from './tables.js'

export * from './api.js'

/** What PostgreSQL's uuid type takes: anything else is no user (not a failed cast). */
const isUuid = (s: string) => typeof s === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

export default definePlugin({
  id: 'mfa',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Multi-factor sign-in: TOTP authenticator apps (RFC 6238), setup by emailed link, per-token code budget, daemon check surface.',
  permissions: mfaPermissions,
  settings: mfaSettings,
  serverOptions: mfaServerOptions,
  migrations: new URL('./migrations/', import.meta.url),
  tables: mfaTables,
  locales: { en, ru },
  // The console, when loaded, has the page the setup mail links to.
  optionalDependsOn: ['console'],
  deps: {
    database: coreServices.database,
    secrets: coreServices.secrets,
    settings: coreServices.settings,
    serverOptions: coreServices.serverOptions,
    identity: identityServices.identity,
    mail: identityServices.mail,
    userLifecycle: identityServices.userLifecycle,
    audit: coreServices.audit,
    logger: coreServices.logger,
    platform: coreServices.platform,
    console: optional(consoleServiceRef),
  },
  init({ database, secrets, settings, serverOptions, identity, mail, userLifecycle, audit, logger, platform, console }) {
    const store = new TotpStore(database.knex, secrets)
    const budget = new TokenBudget(database.knex)
    const recovery = new RecoveryCodes(database.knex)
    const push = createPushFactor({
      knex: database.knex,
      identity,
      audit,
      log: logger,
      store,
      target: { url: serverOptions.get(mfaPushServiceUrl), key: serverOptions.get(mfaPushServiceKey), publicUrl: serverOptions.get(mfaPushPublicUrl) },
      coreVersion: platform.version,
      timeoutSeconds: () => settings.get(mfaPushTimeout),
    })
    // The login's `factors` list what the user may use: what is enrolled, narrowed by their choice.
    const offered = async (userId: string, f: 'totp' | 'push') => (await push.factorsOf(userId)).allowed.includes(f)
    identity.registerSecondFactor({ id: 'totp', isEnrolled: (userId) => store.isEnrolled(userId), isOffered: (userId) => offered(userId, 'totp') })
    // A phone enrolled for push is a second factor too: the login then asks for it.
    identity.registerSecondFactor({ id: 'push', isEnrolled: (userId) => push.challenges.hasDevice(userId), isOffered: (userId) => offered(userId, 'push') })
    // A disabled (or expired, deleted) account's pending pushes end: its phone cannot approve them.
    userLifecycle.onAccessEnded(async (e) => {
      if (e.reason !== 'network_login_off') await push.challenges.cancelAll(e.user_id)
      // Its recovery codes end too: re-enabling the account brings none back (the user makes a new set).
      if (e.reason !== 'network_login_off') await recovery.revoke(e.user_id)
    })
    // A deleted user's authenticator goes with the user, in the deleting transaction (the kernel's
    // users table is not this plugin's: no foreign key, migration 0002).
    identity.references.user.registerGuard({
      onDelete: 'clear',
      referrers: async (ids, db) => [
        ...(await db('mfa_totp').whereRaw('user_id = ANY(?::uuid[])', [uuidArray(ids)]).select('user_id')).map((r) => ({ type: 'mfa_totp', id: r.user_id, name: 'TOTP authenticator' })),
        ...(await db('mfa_push_device').whereRaw('user_id = ANY(?::uuid[])', [uuidArray(ids)]).select('id', 'name')).map((r) => ({ type: 'mfa_push_device', id: r.id, name: r.name })),
      ],
      // Its phones, pending pushes (ended first: a waiter sees `cancelled`), enrollment codes and factor choice go too.
      clear: async (ids, trx) => {
        const users = [uuidArray(ids)]
        await trx('mfa_totp').whereRaw('user_id = ANY(?::uuid[])', users).delete()
        await trx('mfa_push_challenge').whereRaw('user_id = ANY(?::uuid[])', users).delete()
        await trx('mfa_push_device').whereRaw('user_id = ANY(?::uuid[])', users).delete()
        await trx('mfa_push_enrollment').whereRaw('user_id = ANY(?::uuid[])', users).delete()
        await trx('mfa_user_factors').whereRaw('user_id = ANY(?::uuid[])', users).delete()
        await trx('mfa_recovery_code').whereRaw('user_id = ANY(?::uuid[])', users).delete()
      },
    })
    const challenges = new DeviceChallenges(database.knex)
    const baseUrl = serverOptions.get(mfaInternalUrl)
    const service = {
      async daemonLink(db?: Parameters<typeof settings.get>[1]) {
        const key = await settings.get(mfaInternalKey, db)
        return key === null ? null : { baseUrl, key, checkPath: '/api/v1/mfa/internal/check' as const, verifyPath: '/api/v1/mfa/internal/verify' as const, pushPath: '/api/v1/mfa/internal/push' as const }
      },
      isEnrolled: (userId: string) => (isUuid(userId) ? store.isEnrolled(userId) : Promise.resolve(false)),
      async verifyCode(userId: string, code: string) {
        // Six digits, as every surface takes them; anything else is no code and costs no computation.
        if (!isUuid(userId) || typeof code !== 'string' || !/^[0-9]{6}$/.test(code)) return false
        return (await store.consume(userId, code)) === 'accepted'
      },
      push: push.challenges,
      factorsOf: (userId: string) => push.factorsOf(userId),
    }
    return { services: [provide(mfaServiceRef, service)], routes: mfaRoutes({ identity, mail, settings, store, budget, recovery, challenges, push, consoleServed: console !== undefined }) }
  },
})
