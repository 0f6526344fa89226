/** The radius plugin's contract: RADIUS profiles (reply attributes for device administration). */
import type { Knex } from 'knex'
import { createServiceRef } from '../../sdk/index.js'

export interface RadiusAttribute {
  /** FreeRADIUS dictionary name (`Service-Type`, `Cisco-AVPair`, `Tunnel-Private-Group-Id`). */
  name: string
  /** The value as FreeRADIUS writes it (`Administrative-User`, `shell:priv-lvl=15`, `100`). */
  value: string
}

export interface RadiusProfile {
  id: string
  name: string
  description: string | null
  attributes: RadiusAttribute[]
  created_at: string
  updated_at: string
}

type Db = Knex | Knex.Transaction

export interface RadiusService {
  getProfile(id: string, db?: Db): Promise<RadiusProfile | null>
  listProfiles(db?: Db): Promise<RadiusProfile[]>
}

export const radiusServiceRef = createServiceRef<RadiusService>({ id: 'radius.service' })
