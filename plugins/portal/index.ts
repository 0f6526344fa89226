/**
 * The captive portal: hotspot, self-registered and sponsored guests, and
 * employees' own devices (BYOD). An unknown MAC is sent by the NAC policy to a
 * portal (a profile with `portal_redirect`); the guest registers there; the
 * endpoint joins the portal's endpoint group, FreeRADIUS gets the change by a
 * deploy the platform asks for, and a Change of Authorization moves the device
 * to the guest VLAN. Guests expire, and the CoA ends their access. See docs/portal.md.
 */
import { coreServices, definePlugin, identityServices, optional } from '../../sdk/index.js'
import { mfaServiceRef } from '../mfa/api.js'
import { nacCoaServiceRef, nacServiceRef } from '../nac/api.js'
import { pkiServiceRef } from '../pki/api.js'
import { radiusServiceRef } from '../radius/api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { PORTAL_SPONSOR, portalPermissions } from './permissions.js'
import { adminRoutes } from './routes/admin.js'
import { guestRoutes } from './routes/guest.js'
import { portalContext } from './services/context.js'
import { endUserSessions } from './services/end-session.js'
import { startExpiry } from './services/expiry.js'
import { registerPortalGuards } from './services/portals.js'
import { portalSettings } from './settings.js'
import { portalTables } from './tables.js'

export default definePlugin({
  id: 'portal',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Captive portal: hotspot, self-registration, sponsored guests and BYOD onboarding, on top of the NAC (MAB redirect, endpoint groups, CoA).',
  dependsOn: ['nac'],
  optionalDependsOn: ['mfa', 'pki', 'radius'],
  permissions: portalPermissions,
  settings: portalSettings,
  migrations: new URL('./migrations/', import.meta.url),
  tables: portalTables,
  locales: { en, ru },
  deps: {
    database: coreServices.database,
    settings: coreServices.settings,
    audit: coreServices.audit,
    logger: coreServices.logger,
    cluster: coreServices.cluster,
    deploys: coreServices.deploys,
    identity: identityServices.identity,
    mail: identityServices.mail,
    userLifecycle: identityServices.userLifecycle,
    nac: nacServiceRef,
    coa: nacCoaServiceRef,
    mfa: optional(mfaServiceRef),
    pki: optional(pkiServiceRef),
    radius: optional(radiusServiceRef),
  },
  init(d) {
    const c = portalContext(d, d.logger.child({ plugin: 'portal' }), d.radius !== undefined)
    // A portal's sponsor group grants the sponsor's decision by membership: held to the no-escalation
    // rule as a role granting portal.sponsor would be (only an administrator or a holder adds members).
    d.identity.registerCapabilityGroups({
      permission: PORTAL_SPONSOR,
      groupIds: async (db) => (await db('portal_portals').whereNotNull('sponsor_group_id').distinct('sponsor_group_id')).map((r) => r.sponsor_group_id as string),
    })
    // Deleting an endpoint group or user group a portal names answers 409 naming the portal.
    registerPortalGuards(c)
    // An employee whose access ended loses the own devices they registered, which hold their access by group.
    d.userLifecycle.onAccessEnded((e) => endUserSessions(c, e))
    let stopExpiry = async () => undefined as void
    return {
      routes: [...adminRoutes(c), ...guestRoutes(c)],
      start: async () => {
        stopExpiry = startExpiry(c)
      },
      stop: async () => stopExpiry(),
    }
  },
})
