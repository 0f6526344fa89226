/** The wire types the collector's SSH side uses, from the contract file the core shares (sdk/collector-protocol.ts). */
export type { CollectorProfile, DeviceCredential, FetchStatus } from '../sdk/collector-protocol.js'
