/**
 * Access tokens: JWTs (HS256) signed with a key derived from the master key.
 * Each states its purpose; the gate accepts `session` unless a route widens it.
 * Verification pins the algorithm, so `alg: none` and other algorithms fail.
 */
import { randomUUID } from 'node:crypto'
// jose's subpath entries: the package's index loads all of JOSE (46 modules) where signing
// and verifying a JWT need 20, a tenth of a start's module loading.
import { SignJWT } from 'jose/jwt/sign'
import { jwtVerify } from 'jose/jwt/verify'
import * as joseErrors from 'jose/errors'
import { deriveKey } from './secrets.js'

export const TOKEN_PURPOSES = ['session', 'password_change', 'mfa_enrollment', 'mfa', 'byod_mfa'] as const
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number]

export interface TokenClaims {
  sub: string
  purpose: TokenPurpose
  jti: string
  exp: number
  iat: number
  /** Username, for logs. Rights are never read from the token: the gate looks the user up. */
  name: string
}

const ISSUER = 'portcullis'

export class TokenService {
  private readonly key: Uint8Array<ArrayBuffer>
  /** Imported once: handing jose raw bytes would re-import the key on every verification. */
  private verifyKey: Promise<CryptoKey> | null = null

  constructor(master: Buffer) {
    this.key = new Uint8Array(deriveKey(master, 'jwt'))
  }

  async issue(c: { sub: string; name: string; purpose: TokenPurpose; ttlSeconds: number }): Promise<{ token: string; jti: string; exp: number }> {
    const jti = randomUUID()
    const now = Math.floor(Date.now() / 1000)
    const exp = now + c.ttlSeconds
    const token = await new SignJWT({ purpose: c.purpose, name: c.name })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(c.sub)
      .setIssuer(ISSUER)
      .setJti(jti)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.key)
    return { token, jti, exp }
  }

  /**
   * Tokens already verified, by their exact text, until they expire: the same bytes carry the
   * same valid signature, so a client's every request need not pay the HMAC again. Revocation
   * and disabled accounts are not decided here but by the actor cache, on every request.
   */
  private readonly verified = new Map<string, TokenClaims>()

  /** The claims of a valid token, or null for anything expired, tampered, unsigned or malformed. */
  async verify(token: string): Promise<TokenClaims | null> {
    if (token.length > 8192) return null
    const known = this.verified.get(token)
    if (known) {
      if (known.exp * 1000 > Date.now()) return known
      this.verified.delete(token)
      return null
    }
    const claims = await this.check(token)
    if (claims) {
      // Bounded: past the cap, start over rather than track recency on the hot path.
      if (this.verified.size >= 10_000) this.verified.clear()
      this.verified.set(token, claims)
    }
    return claims
  }

  private async check(token: string): Promise<TokenClaims | null> {
    try {
      this.verifyKey ??= crypto.subtle.importKey('raw', this.key, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
      const { payload } = await jwtVerify(token, await this.verifyKey, { algorithms: ['HS256'], issuer: ISSUER, requiredClaims: ['exp', 'iat', 'jti', 'sub'] })
      if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.purpose !== 'string') return null
      if (!(TOKEN_PURPOSES as readonly string[]).includes(payload.purpose)) return null
      return payload as unknown as TokenClaims
    } catch (e) {
      if (e instanceof joseErrors.JOSEError || e instanceof TypeError) return null
      throw e
    }
  }
}
