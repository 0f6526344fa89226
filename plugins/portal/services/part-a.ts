/**
 * Stand-in until part A's hooks land on main (notes/portal29.md "Part A"): the NAC, MFA and PKI
 * methods the portal calls, typed as that design names them. Removed once main has them.
 */
import type { Knex } from 'knex'
import type { Endpoint } from '../../nac/api.js'
import type { PortalContext } from './context.js'

export interface PortalRedirect {
  mac: string
  nas_ip: string | null
  ssid: string | null
  signed: boolean
}

interface NacPortalHooks {
  registerEndpoint(r: { mac: string; endpoint_group_id: string; owner_user_id?: string | null; description?: string | null }, db?: Knex | Knex.Transaction): Promise<Endpoint>
  releaseEndpoint(endpointId: string, fromGroupId: string, db?: Knex | Knex.Transaction): Promise<Endpoint | null>
  verifyPortalRedirect(q: Record<string, string | undefined>): Promise<PortalRedirect | null>
}

interface MfaPortalHooks {
  isEnrolled(userId: string): Promise<boolean>
  verifyCode(userId: string, code: string): Promise<boolean>
}

interface PkiPortalHooks {
  issueUserCertificate(r: { userId: string; commonName: string; caId?: string | null; validityDays?: number }): Promise<{ certificateId: string; downloadUrl: string; downloadToken: string }>
}

export const nacHooks = (c: PortalContext) => c.nac as unknown as NacPortalHooks
export const mfaHooks = (c: PortalContext) => c.mfa as unknown as MfaPortalHooks | undefined
export const pkiHooks = (c: PortalContext) => c.pki as unknown as PkiPortalHooks | undefined
