import type { Knex } from 'knex'
import type { Logger, SettingsService } from '../../../sdk/index.js'
import type { PkiService } from '../api.js'
import { crlValidityHours } from '../settings.js'
import type { Signers } from './ca.js'
import { regenerateCrl } from './crl.js'

/** Everything but issueUserCertificate (user-issue.ts), which index.ts adds. */
export function createPkiService(knex: Knex, signers: Signers, settings: SettingsService, log: Logger): Omit<PkiService, 'issueUserCertificate'> {
  return {
    async getCa(id) {
      const r = await knex('pki_cas').where({ id }).first('id', 'name', 'kind', 'subject', 'certificate', 'chain', 'not_after')
      return r ? { id: r.id, name: r.name, kind: r.kind, subject: r.subject, chainPem: r.certificate + r.chain, notAfter: r.not_after } : null
    },
    async currentCrl(caId) {
      return (await knex('pki_cas').where({ id: caId }).first('crl_der'))?.crl_der ?? null
    },
    async refreshDueCrls(now = new Date()) {
      const hours = await settings.get(crlValidityHours)
      // Half the life left: a missed run or two still leaves a valid CRL for relying parties.
      const due = await knex('pki_cas')
        .where((w) => w.whereNull('crl_next_update').orWhere('crl_next_update', '<', new Date(now.getTime() + (hours * 3_600_000) / 2)))
        .select('id')
      for (const { id } of due) {
        await knex.transaction(async (trx) => {
          const signer = await signers.get(id, trx)
          if (signer) await regenerateCrl(trx, signer, hours, now)
        })
      }
      if (due.length) log.info({ cas: due.length }, 'pki: CRLs made before their nextUpdate')
      // An expired download link keeps nothing to deliver (its bundle may hold a key).
      await knex('pki_downloads').whereNotNull('sealed_bundle').where('expires_at', '<=', now).update({ sealed_bundle: null })
      return due.length
    },
  }
}
