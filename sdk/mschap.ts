/**
 * MS-CHAP as a client computes it (RFC 2433 v1, RFC 2759 v2): the one
 * implementation the RADIUS client (radius-probe, the FreeRADIUS end-to-end
 * tests) and the TACACS+ client (the tac_plus-ng end-to-end tests) share. The
 * password enters only as its NT hash (MD4 of UTF-16LE, `ntHash`).
 */
import { createCipheriv, createHash } from 'node:crypto'
import { md4, ntHash } from './md4.js'

const sha1 = (...b: Buffer[]) => createHash('sha1').update(Buffer.concat(b)).digest()

/** DES of one block with a 7-byte key spread over 8 bytes (parity bits ignored); OpenSSL 3 keeps single DES in its legacy provider, so 3DES with three equal keys. */
function desEncrypt(block: Buffer, key7: Buffer): Buffer {
  const k = Buffer.alloc(8)
  k[0] = key7[0]
  k[1] = ((key7[0] << 7) | (key7[1] >> 1)) & 0xff
  k[2] = ((key7[1] << 6) | (key7[2] >> 2)) & 0xff
  k[3] = ((key7[2] << 5) | (key7[3] >> 3)) & 0xff
  k[4] = ((key7[3] << 4) | (key7[4] >> 4)) & 0xff
  k[5] = ((key7[4] << 3) | (key7[5] >> 5)) & 0xff
  k[6] = ((key7[5] << 2) | (key7[6] >> 6)) & 0xff
  k[7] = (key7[6] << 1) & 0xff
  const c = createCipheriv('des-ede3-ecb', Buffer.concat([k, k, k]), null)
  c.setAutoPadding(false)
  return Buffer.concat([c.update(block), c.final()])
}

/** RFC 2759 §8.2 ChallengeHash. */
export const challengeHash = (peer: Buffer, auth: Buffer, user: string): Buffer => sha1(peer, auth, Buffer.from(user, 'utf8')).subarray(0, 8)

/** RFC 2759 §8.5 ChallengeResponse (RFC 2433's NtChallengeResponse): the 8-byte challenge DES-encrypted under the NT hash, padded to 21 bytes. */
export function challengeResponse(challenge: Buffer, passwordHash: Buffer): Buffer {
  const z = Buffer.concat([passwordHash, Buffer.alloc(5)])
  return Buffer.concat([desEncrypt(challenge, z.subarray(0, 7)), desEncrypt(challenge, z.subarray(7, 14)), desEncrypt(challenge, z.subarray(14, 21))])
}

/** RFC 2433 §A.5 NtChallengeResponse of MS-CHAPv1: the 8-byte challenge under the password's NT hash. */
export const mschapV1NtResponse = (challenge: Buffer, password: string): Buffer => challengeResponse(challenge, ntHash(password))

/** RFC 2759 §8.1 GenerateNTResponse, from the password's NT hash. */
export const ntResponseFromHash = (auth: Buffer, peer: Buffer, user: string, passwordHash: Buffer): Buffer => challengeResponse(challengeHash(peer, auth, user), passwordHash)

/** RFC 2759 §8.1 GenerateNTResponse, from the password. */
export const ntResponse = (auth: Buffer, peer: Buffer, user: string, password: string): Buffer => ntResponseFromHash(auth, peer, user, ntHash(password))

const MAGIC1 = Buffer.from('Magic server to client signing constant', 'ascii')
const MAGIC2 = Buffer.from('Pad to make it do more than one iteration', 'ascii')

/** RFC 2759 §8.7 GenerateAuthenticatorResponse: the `S=…` the server proves itself with (MS-CHAP2-Success). */
export function authenticatorResponse(password: string, nt: Buffer, peer: Buffer, auth: Buffer, user: string): string {
  const digest = sha1(md4(ntHash(password)), nt, MAGIC1)
  return 'S=' + sha1(digest, challengeHash(peer, auth, user), MAGIC2).toString('hex').toUpperCase()
}
