/**
 * What the portal's routes and jobs work with: the resolved deps, once. The
 * NAC registers endpoints and sends the Changes of Authorization; MFA and the
 * PKI serve the employee (BYOD) path when the edition has them.
 */
import type { Knex } from 'knex'
import type { AuditService, ClusterInfo, DatabaseService, DeploysService, IdentityService, Logger, MailService, SettingsService } from '../../../sdk/index.js'
import type { MfaService } from '../../mfa/api.js'
import type { NacCoaService, NacService } from '../../nac/api.js'
import type { PkiService } from '../../pki/api.js'

export interface PortalContext {
  knex: Knex
  engine: 'postgres' | 'embedded'
  settings: SettingsService
  audit: AuditService
  identity: IdentityService
  mail: MailService
  log: Logger
  cluster: ClusterInfo
  deploys: DeploysService
  nac: NacService
  coa: NacCoaService
  /** Absent without the mfa plugin: an employee then signs in with the password alone. */
  mfa: MfaService | undefined
  /** Absent without the pki plugin: no certificate onboarding. */
  pki: PkiService | undefined
  /**
   * The radius plugin is loaded: FreeRADIUS answers from its rendered tree, so an endpoint's new group
   * reaches it by a deploy (`deploys.request(FREERADIUS_DAEMON, …)`, coalesced), after which the NAC
   * sends the automatic CoA that waited for it (nac.coa_on_change). Without it the CoA goes at once.
   */
  freeradiusFromFiles: boolean
}

/** The resolved deps the context is made of (the plugin's init, and tests that call its jobs directly). */
export interface PortalDeps {
  database: DatabaseService
  settings: SettingsService
  audit: AuditService
  identity: IdentityService
  mail: MailService
  cluster: ClusterInfo
  deploys: DeploysService
  nac: NacService
  coa: NacCoaService
  mfa: MfaService | undefined
  pki: PkiService | undefined
}

export function portalContext(d: PortalDeps, log: Logger, freeradiusFromFiles: boolean): PortalContext {
  const { database, settings, audit, identity, mail, cluster, deploys, nac, coa, mfa, pki } = d
  return { knex: database.knex, engine: database.engine, settings, audit, identity, mail, log, cluster, deploys, nac, coa, mfa, pki, freeradiusFromFiles }
}
