/**
 * The EST approval queue: with pki.est_approval_required on, an enrollment
 * is stored as a request (keyed by the SHA-256 of its CSR and who sent it)
 * and the approver is mailed a one-time link; the client polls with the same
 * CSR and gets 202 until a person approves it, then the certificate (and the
 * same certificate on any later poll). A rejected request answers 403.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import type { Logger, MailService, RouteRequest, SettingsService } from '../../../sdk/index.js'
import { identitySettingRefs } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import { estApproverEmail } from '../settings.js'
import { sanText, type ParsedCsr } from './csr.js'
import { pemBlocks } from './der.js'

/** How long the approver's link stays usable; the API decides after that. */
export const APPROVAL_LINK_HOURS = 168

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex')

/**
 * A value the enrolling device chose, as it may appear in the approver's mail: one line, every control,
 * line-break, direction or other invisible format character written as `\u{…}`, bounded. The template
 * refuses such subjects already (issue.ts); this keeps a mail line from being forged if one got through.
 */
export function mailValue(v: string, max = 300): string {
  const shown = v.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (ch) => `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`)
  return [...shown].length > max ? `${[...shown].slice(0, max).join('')}…` : shown
}

type Req = Pick<RouteRequest<unknown, unknown, unknown>, 'audit' | 't' | 'transaction'>
export type Held = { state: 'waiting' } | { state: 'approved'; requestId: string } | { state: 'issued'; certificateDer: Buffer }

export interface HoldInput {
  der: Buffer
  csr: ParsedCsr
  requester: string
  requesterUserId: string | null
  renewsId: string | null
}

export class EstQueue {
  constructor(
    private readonly knex: Knex,
    private readonly settings: SettingsService,
    private readonly mail: MailService,
    private readonly log: Logger,
  ) {}

  /** Where this CSR from this requester stands; a first poll makes the request and mails the approver. */
  async poll(req: Req, i: HoldInput): Promise<Held> {
    const csrHash = createHash('sha256').update(i.der).digest('hex')
    const existing = await this.knex('pki_est_requests').where({ csr_hash: csrHash, requester: i.requester }).orderBy('created_at', 'desc').first('id', 'status', 'certificate_id')
    if (existing?.status === 'pending') return { state: 'waiting' }
    if (existing?.status === 'rejected') throw PkiErrors.estRejected()
    if (existing?.status === 'approved') return { state: 'approved', requestId: existing.id }
    if (existing?.status === 'issued' && existing.certificate_id) {
      const cert = await this.knex('pki_certificates').where({ id: existing.certificate_id }).first('certificate')
      if (cert) return { state: 'issued', certificateDer: pemBlocks(cert.certificate, 'CERTIFICATE')[0] }
    }
    const token = randomBytes(32).toString('base64url')
    const expires = new Date(Date.now() + APPROVAL_LINK_HOURS * 3_600_000)
    const san = i.csr.san.map(sanText).join(', ')
    const id = await req.transaction(async (trx) => {
      const [row] = await trx('pki_est_requests')
        .insert({ csr_hash: csrHash, csr_der: i.der, requester: i.requester, requester_user_id: i.requesterUserId, renews_id: i.renewsId, subject: i.csr.subject, san, token_hash: tokenHash(token), token_expires_at: expires })
        .returning('id')
      await req.audit({ action: 'est_request.create', resourceType: 'est_request', resourceId: row.id, after: { id: row.id, subject: i.csr.subject, san, requester: i.requester, renews_id: i.renewsId } }, trx)
      return row.id
    })
    await this.notify(req, { id, subject: i.csr.subject, san, requester: i.requester, token, expires })
    return { state: 'waiting' }
  }

  /** Mails the approver the one-time link; a mail failure leaves the request to the API (logged). */
  private async notify(req: Req, r: { id: string; subject: string; san: string; requester: string; token: string; expires: Date }) {
    const to = await this.settings.get(estApproverEmail)
    if (!to) return
    const base = (await this.settings.get(identitySettingRefs.publicUrl))?.replace(/\/+$/, '')
    // Without a public URL the mail carries the path: the request's Host header never chooses where a link points.
    const link = `${base ?? ''}/api/v1/public/est-approval/${r.token}`
    try {
      await this.mail.send({
        to,
        subject: req.t('pki:mail.est_subject', { subject: mailValue(r.subject, 120) }),
        text: req.t('pki:mail.est_body', { subject: mailValue(r.subject), san: mailValue(r.san) || '-', requester: mailValue(r.requester), link, expires: r.expires.toISOString() }),
      })
    } catch (e) {
      this.log.warn({ err: e, est_request: r.id }, 'pki: the EST approval mail could not be sent; decide through the API')
    }
  }

  /**
   * Claims an approved request for issuing, first thing in the issuing transaction: of two polls at
   * once, the second waits on the row and finds it claimed (false: it answers 202, and its next poll
   * gets the certificate the first one issued).
   */
  async claim(trx: Knex.Transaction, requestId: string): Promise<boolean> {
    return (await trx('pki_est_requests').where({ id: requestId, status: 'approved' }).update({ status: 'issued' })) === 1
  }

  async issuedAs(trx: Knex.Transaction, requestId: string, certificateId: string): Promise<void> {
    await trx('pki_est_requests').where({ id: requestId }).update({ certificate_id: certificateId })
  }
}
