/**
 * The gate of every collector request (design31 §2), in the order it refuses: the signature
 * (parse, coverage, tag and alg; the `created` window; a known key; the Ed25519 signature; the
 * body's digest), the nonce (cluster-wide, in ncm_nonces), then, with X-Service-Core-Version on
 * every answer from here on: the collector not revoked or removed, and the contract token. Only
 * then is the handler run. A removed collector keeps its public key (a tombstone), so its next
 * request verifies and gets a clear 401 NCM_COLLECTOR_REVOKED instead of "unknown key".
 */
import type { KeyObject } from 'node:crypto'
import { isPortcullisError, type RouteRequest } from '../../../sdk/index.js'
import { COLLECTOR_COMPONENTS, COLLECTOR_CONTRACT, COLLECTOR_SIGNATURE_LABEL, COLLECTOR_SIGNATURE_TAG, CONTRACT_HEADER, publicKeyFromRaw, RELEASE_HEADER } from '../../../sdk/collector-protocol.js'
import { verifyMessage } from '../../../sdk/http-signatures.js'
import { NcmErrors } from '../errors.js'
import type { CollectorRow } from '../tables.js'
import type { NcmContext } from './context.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's request
type AnyReq = RouteRequest<any, any, any>

/** Seconds either side of the server's clock a signature's `created` may lie. */
export const SIGNATURE_WINDOW_SECONDS = 60
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const NONCE = /^[\x21-\x7e]{8,128}$/
/** Contact fields are written at most this often per collector (every poll would be a write). */
const CONTACT_EVERY_MS = 10_000

/** Printable ASCII of at most `max` characters, for what a collector says about itself. */
export const printable = (v: string | string[] | undefined, max = 64): string | null => {
  const s = typeof v === 'string' ? v.replace(/[^\x20-\x7e]/g, '?').slice(0, max) : ''
  return s === '' ? null : s
}

export interface Verified {
  /** The collector's row (for `enroll`: null; the handler finds it by its token). */
  collector: CollectorRow | null
  /** Put on every answer, errors too (attached to thrown errors by `run`). */
  versionHeader: Record<string, string>
  contractMatches: boolean
  release: string | null
}

export class CollectorGate {
  private lastSweep = 0

  constructor(private readonly c: NcmContext) {}

  private get knex() {
    return this.c.database.knex
  }

  /**
   * Checks `req` and runs `fn` with the collector it comes from; every answer after the signature
   * verified carries X-Service-Core-Version. `enrollKey`: the key of an enrollment (keyid "enroll").
   */
  async run<T>(req: AnyReq, fn: (collector: CollectorRow, v: Verified) => Promise<T>, enrollKey?: KeyObject): Promise<T> {
    const body = req.rawBody ?? Buffer.alloc(0)
    let collector: CollectorRow | null = null
    const result = await verifyMessage(
      { method: req.target.method, path: req.target.path, query: req.target.query === '' ? '' : `?${req.target.query}`, headers: req.headers, body },
      {
        required: COLLECTOR_COMPONENTS,
        tag: COLLECTOR_SIGNATURE_TAG,
        label: COLLECTOR_SIGNATURE_LABEL,
        windowSeconds: SIGNATURE_WINDOW_SECONDS,
        resolveKey: async (keyid) => {
          if (enrollKey) return keyid === 'enroll' ? enrollKey : null
          if (!UUID.test(keyid)) return null
          collector = (await this.knex('ncm_collectors').where({ id: keyid }).first()) ?? null
          if (!collector?.ed25519_public_key) return null
          try {
            return publicKeyFromRaw('ed25519', collector.ed25519_public_key)
          } catch {
            return null
          }
        },
      },
    )
    if (!result.ok) {
      req.log.info({ refusal: result.reason }, 'collector request refused: signature')
      throw result.reason === 'stale' ? NcmErrors.signatureStale() : NcmErrors.signatureInvalid()
    }
    if (!NONCE.test(result.nonce)) throw NcmErrors.signatureInvalid()
    await this.sweep()
    // Step 5: one row per (key, nonce) in the whole cluster; the second insert inserts nothing.
    const keyName = enrollKey ? enrollKeyName(enrollKey) : result.keyid
    const inserted = await this.knex.raw(`INSERT INTO ncm_nonces (collector_key, nonce) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING nonce`, [keyName, result.nonce])
    if (!(inserted.rows as unknown[]).length) throw NcmErrors.replayed()

    // Step 6: verified. From here on every answer says the core's release.
    const versionHeader = { 'X-Service-Core-Version': this.c.platform.version }
    try {
      const contractMatches = req.headers[CONTRACT_HEADER] === COLLECTOR_CONTRACT
      const release = printable(req.headers[RELEASE_HEADER])
      const v: Verified = { collector, versionHeader, contractMatches, release }
      if (enrollKey) return await fn(null as unknown as CollectorRow, v)
      const row = collector as CollectorRow | null
      if (!row) throw NcmErrors.signatureInvalid()
      // Step 7.
      if (row.state === 'revoked' || row.removed_at !== null) {
        await this.refused(row.id, 'NCM_COLLECTOR_REVOKED')
        throw NcmErrors.collectorRevoked()
      }
      // Step 8: nothing stored but the status.
      if (!contractMatches) {
        await this.mismatch(row.id, req.headers[CONTRACT_HEADER])
        throw this.contractError(req.headers[CONTRACT_HEADER])
      }
      // Step 9.
      await this.contact(row, req.ip, release)
      return await fn(row, v)
    } catch (e) {
      if (isPortcullisError(e)) Object.assign(e.headers, versionHeader)
      throw e
    }
  }

  contractError(seen: string | string[] | undefined) {
    return NcmErrors.contractMismatch({ vars: { seen: printable(seen) ?? '(none)', expected: COLLECTOR_CONTRACT } })
  }

  /** A contract mismatch: the status says so; nothing else is stored. */
  async mismatch(collectorId: string, seen: string | string[] | undefined): Promise<void> {
    await this.knex('ncm_collectors')
      .where({ id: collectorId })
      .update({ contract_state: 'mismatch', contract_seen: printable(seen), last_refusal_code: 'NCM_CONTRACT_MISMATCH', last_refusal_at: new Date(), updated_at: new Date() })
  }

  private async refused(collectorId: string, code: string): Promise<void> {
    await this.knex('ncm_collectors').where({ id: collectorId }).update({ last_refusal_code: code, last_refusal_at: new Date() })
  }

  private async contact(row: CollectorRow, address: string, release: string | null): Promise<void> {
    const now = new Date()
    const fresh = row.last_contact_at !== null && now.getTime() - new Date(row.last_contact_at).getTime() < CONTACT_EVERY_MS
    if (fresh && row.contract_state === 'match' && row.release === release && row.last_address === address) return
    await this.knex('ncm_collectors')
      .where({ id: row.id })
      .update({ last_contact_at: now, last_address: printable(address), release, contract_state: 'match', contract_seen: null })
  }

  /** Nonces older than two windows can no longer verify (`created` is checked first): dropped once a minute per node. */
  private async sweep(): Promise<void> {
    const now = Date.now()
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    await this.knex('ncm_nonces')
      .where('seen_at', '<', new Date(now - 2 * SIGNATURE_WINDOW_SECONDS * 1000 - 60_000))
      .delete()
  }
}

/** The nonce namespace of an enrollment: the key that signed it. */
const enrollKeyName = (key: KeyObject): string => `enroll:${key.export({ format: 'jwk' }).x ?? ''}`
