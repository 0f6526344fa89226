/**
 * The NAC calls the portal makes (issue 29 part A: NacService.registerEndpoint
 * and releaseEndpoint). Typed here as optional so that this plugin compiles
 * before and after they land; calling one that is missing is a loud error,
 * never a silent skip (a device would keep its guest group).
 */
import type { Knex } from 'knex'
import type { Endpoint, NacService } from '../../nac/api.js'

type Db = Knex | Knex.Transaction

interface PortalNacCalls {
  registerEndpoint?(r: { mac: string; endpoint_group_id: string; owner_user_id?: string | null; description?: string | null }, db?: Db): Promise<Endpoint>
  releaseEndpoint?(endpointId: string, fromGroupId: string, db?: Db): Promise<Endpoint | null>
}

const calls = (nac: NacService) => nac as NacService & PortalNacCalls

export function releaseEndpoint(nac: NacService, endpointId: string, fromGroupId: string, db: Db): Promise<Endpoint | null> {
  const n = calls(nac)
  if (!n.releaseEndpoint) throw new Error('portal: the nac plugin has no releaseEndpoint (issue 29, part A)')
  return n.releaseEndpoint(endpointId, fromGroupId, db)
}

export function registerEndpoint(nac: NacService, r: { mac: string; endpoint_group_id: string; owner_user_id?: string | null; description?: string | null }, db: Db): Promise<Endpoint> {
  const n = calls(nac)
  if (!n.registerEndpoint) throw new Error('portal: the nac plugin has no registerEndpoint (issue 29, part A)')
  return n.registerEndpoint(r, db)
}
