/**
 * An internal PKI: certificate authorities (root and issuing, made here or
 * imported; keys sealed with the master key), certificate templates, issuing
 * from a CSR, revocation, CRLs and an OCSP responder that relying parties
 * reach without credentials. See docs/pki.md.
 */
import { coreServices, definePlugin, identityServices, optional, provide } from '../../sdk/index.js'
import { radiusServiceRef } from '../radius/api.js'
import { freeradiusCertificates } from './services/freeradius.js'
import { pkiServiceRef } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { PKI_ISSUE, pkiPermissions } from './permissions.js'
import { certificateExpirySource } from './report-sources/certificate-expiry.js'
import { caRoutes } from './routes/cas.js'
import { certificateRoutes } from './routes/certificates.js'
import { downloadRoutes } from './routes/downloads.js'
import { estRoutes } from './routes/est.js'
import { estApprovalRoutes } from './routes/est-approval.js'
import { EstQueue } from './services/est-queue.js'
import type { PkiContext } from './routes/context.js'
import { publicRoutes } from './routes/public.js'
import { templateRoutes } from './routes/templates.js'
import { Signers } from './services/ca.js'
import { OcspResponder } from './services/ocsp.js'
import { createPkiService } from './services/service.js'
import { revokeDeletedUsersCertificates } from './services/user-certificates.js'
import { userCertificateIssuer } from './services/user-issue.js'
import { estGroupId, pkiSettings } from './settings.js'
import { pkiTables } from './tables.js'

export * from './api.js'

/** How often the primary looks for CRLs to make before their nextUpdate. */
const CRL_CHECK_MS = 10 * 60_000

export default definePlugin({
  id: 'pki',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Internal PKI: CAs, certificate templates, issuing from a CSR, revocation, CRLs and an OCSP responder.',
  // Beside radius only: the CA chain and CRLs go into the FreeRADIUS tree (services/freeradius.ts).
  optionalDependsOn: ['radius'],
  permissions: pkiPermissions,
  settings: pkiSettings,
  // The contract names the EST switch and the mutual-TLS proxy key under nac. (spec, Authentication).
  settingNamespaces: ['nac'],
  migrations: new URL('./migrations/', import.meta.url),
  tables: pkiTables,
  locales: { en, ru },
  deps: { database: coreServices.database, secrets: coreServices.secrets, settings: coreServices.settings, logger: coreServices.logger, cluster: coreServices.cluster, identity: identityServices.identity, mail: identityServices.mail, userLifecycle: identityServices.userLifecycle, audit: coreServices.audit, radius: optional(radiusServiceRef), reportSources: coreServices.reportSources },
  init({ database, secrets, settings, logger, cluster, identity, mail, userLifecycle, audit, radius, reportSources }) {
    reportSources.add('pki', certificateExpirySource)
    const knex = database.knex
    const signers = new Signers(knex, secrets)
    const ctx: PkiContext = { knex, secrets, settings, identity, mail, queue: new EstQueue(knex, settings, mail, logger), signers, ocsp: new OcspResponder(knex, signers) }
    const service = { ...createPkiService(knex, signers, settings, logger), issueUserCertificate: userCertificateIssuer({ knex, signers, secrets, settings, identity, audit }) }
    // Membership of the EST group gets certificates from the EST CA: giving it needs pki.issue, as a role granting pki.issue would.
    identity.registerCapabilityGroups({
      permission: PKI_ISSUE,
      groupIds: async (db) => {
        const id = await settings.get(estGroupId, db)
        return id ? [id] : []
      },
    })
    // A deleted user's certificate would otherwise become a device certificate to EAP-TLS (docs/pki.md).
    userLifecycle.onAccessEnded(revokeDeletedUsersCertificates({ knex, signers, settings, audit, log: logger }))
    let timer: NodeJS.Timeout | null = null
    const refresh = () => service.refreshDueCrls().catch((e: unknown) => logger.error({ err: e }, 'pki: CRL refresh failed'))
    return {
      services: [provide(pkiServiceRef, service)],
      renderers: radius ? [freeradiusCertificates(settings)] : [],
      routes: [...caRoutes(ctx), ...templateRoutes(ctx), ...certificateRoutes(ctx), ...downloadRoutes(ctx), ...publicRoutes(ctx), ...estRoutes(ctx), ...estApprovalRoutes(ctx)],
      async start() {
        // One node makes the CRLs; the others serve what it stored.
        if (cluster.role !== 'primary') return
        await refresh()
        timer = setInterval(() => void refresh(), CRL_CHECK_MS)
        timer.unref()
      },
      async stop() {
        if (timer) clearInterval(timer)
      },
    }
  },
})
