/**
 * A deleted user's certificates are revoked (docs/pki.md "A user deleted"). EAP-TLS takes a certificate
 * whose CN names no user for a device certificate (docs/nac.md "Who 802.1X lets in"): left valid, the
 * certificate of a deleted user would become one, admitted by every rule that names no user group.
 *
 * The user's certificates are those whose subject CN is the username (without regard to case), and
 * those issued for an EST request the account made. Each is revoked with reason cessationOfOperation,
 * audited as `pki_certificate.revoke` by whoever deleted the user, and its CA's CRL made anew in the
 * same transaction, so that the next FreeRADIUS deploy carries it (services/freeradius.ts). The account's
 * EST requests still open (pending, or approved and not yet collected) are rejected, audited likewise.
 */
import type { Knex } from 'knex'
import type { AuditService, Logger, SettingsService, UserAccessEnded } from '../../../sdk/index.js'
import { toCertificate } from '../routes/certificates.js'
import { crlValidityHours } from '../settings.js'
import type { Signers } from './ca.js'
import { regenerateCrl } from './crl.js'
import { nameText } from './x509.js'

/** The CN values of a subject as stored (nameText: RFC 4514 escaping, one attribute per comma). */
export function commonNames(subject: string): string[] {
  const out: string[] = []
  let part = ''
  let escaped = false
  for (const ch of subject + ',') {
    if (escaped) {
      part += ch
      escaped = false
    } else if (ch === '\\') {
      part += ch
      escaped = true
    } else if (ch === ',') {
      if (part.startsWith('CN=')) out.push(part.slice(3))
      part = ''
    } else part += ch
  }
  return out
}

export interface UserCertificateDeps {
  knex: Knex
  signers: Signers
  settings: SettingsService
  audit: AuditService
  log: Logger
}

/** The "user's access ended" subscriber: on a delete, revokes the user's unrevoked certificates. */
export function revokeDeletedUsersCertificates(d: UserCertificateDeps) {
  return async (e: UserAccessEnded): Promise<void> => {
    if (e.reason !== 'deleted') return
    // The CN as nameText stores it, to compare with the stored subjects' CNs.
    const cn = nameText([{ type: 'CN', value: e.username }]).slice(3).toLowerCase()
    const revoked = await d.knex.transaction(async (trx) => {
      const candidates = await trx('pki_certificates')
        .whereNull('revoked_at')
        .where((w) =>
          w
            .whereRaw('position(? in lower(subject)) > 0', [cn])
            .orWhereIn('id', trx('pki_est_requests').where({ requester_user_id: e.user_id, status: 'issued' }).whereNotNull('certificate_id').select('certificate_id')),
        )
        .orderBy('created_at')
        .forUpdate()
        .select('*')
      const linked = new Set(
        await trx('pki_est_requests').where({ requester_user_id: e.user_id, status: 'issued' }).whereNotNull('certificate_id').pluck('certificate_id'),
      )
      const mine = candidates.filter((c) => linked.has(c.id) || commonNames(c.subject).some((v) => v.toLowerCase() === cn))
      // What the account asked over EST and nobody collected: an approver could still say yes to it (or the
      // approved certificate be made at the next poll), issuing for an account that no longer exists.
      const open = await trx('pki_est_requests').where({ requester_user_id: e.user_id }).whereIn('status', ['pending', 'approved']).forUpdate().select('id', 'status')
      for (const r of open) {
        await trx('pki_est_requests').where({ id: r.id }).update({ status: 'rejected', decided_by: e.actor?.id ?? null, decided_via: 'api', decided_at: new Date(), token_hash: null, token_expires_at: null })
        await d.audit.record(
          { action: 'est_request.reject', resourceType: 'est_request', resourceId: r.id, before: { status: r.status }, after: { status: 'rejected', cause: 'user_deleted', user_id: e.user_id, username: e.username } },
          { actor: e.actor, requestId: e.requestId, trx },
        )
      }
      if (!mine.length) return 0
      const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000)
      const hours = await d.settings.get(crlValidityHours, trx)
      for (const before of mine) {
        const [after] = await trx('pki_certificates').where({ id: before.id }).update({ revoked_at: revokedAt, revocation_reason: 'cessationOfOperation' }).returning('*')
        await d.audit.record(
          {
            action: 'pki_certificate.revoke',
            resourceType: 'pki_certificate',
            resourceId: before.id,
            before: { ...toCertificate(before), certificate: undefined },
            after: { ...toCertificate(after), certificate: undefined, cause: 'user_deleted', user_id: e.user_id, username: e.username },
          },
          { actor: e.actor, requestId: e.requestId, trx },
        )
      }
      for (const caId of new Set(mine.map((c) => c.ca_id))) {
        const ca = await d.signers.get(caId, trx)
        if (ca) await regenerateCrl(trx, ca, hours)
      }
      return mine.length
    })
    if (revoked) d.log.info({ user_id: e.user_id, certificates: revoked }, 'pki: a deleted user\'s certificates revoked')
  }
}
