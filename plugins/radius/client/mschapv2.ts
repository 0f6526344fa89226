/**
 * MS-CHAPv2 (RFC 2759) as a client computes it, for the RADIUS probe
 * (`portcullis radius-probe`) and the FreeRADIUS end-to-end tests. The crypto
 * lives in the SDK (sdk/mschap.ts), shared with the TACACS+ client.
 */
export { authenticatorResponse, challengeHash, challengeResponse, ntResponse, ntResponseFromHash } from '../../../sdk/index.js'

/** The MS-CHAP2-Response attribute's value (RFC 2548 §2.3.2): ident, flags, peer challenge, 8 reserved bytes, NT response. */
export const mschap2ResponseValue = (ident: number, peer: Buffer, nt: Buffer): Buffer => Buffer.concat([Buffer.from([ident, 0]), peer, Buffer.alloc(8), nt])
