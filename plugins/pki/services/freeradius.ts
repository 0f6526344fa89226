/**
 * The PKI's part of the FreeRADIUS tree (renderer `pki.freeradius`, loaded
 * only beside the radius plugin): with setting pki.freeradius_ca_id set, the
 * CA that FreeRADIUS is to trust for EAP-TLS clients, and its revocation,
 * land in every release next to the radius plugin's files:
 *
 *   certs/portcullis/ca.pem    that CA's certificate and its chain up to the root
 *   certs/portcullis/crl.pem   the current CRL of that CA and of each CA above it made here
 *
 * Nothing references them yet (the configuration has no EAP module): the NAC
 * work that adds EAP points `ca_file` and `check_crl` at them. The CRL in a
 * release is the one current at the deploy: a revocation reaches FreeRADIUS
 * at the next deploy.
 */
import type { ConfigRenderer, RenderedFile, SettingsService } from '../../../sdk/index.js'
import { toPem } from './der.js'
import { freeradiusCaId } from '../settings.js'

export function freeradiusCertificates(settings: SettingsService): ConfigRenderer {
  return {
    id: 'pki.freeradius',
    daemon: 'freeradius',
    async render(snapshot): Promise<RenderedFile[]> {
      const caId = await settings.get(freeradiusCaId, snapshot)
      if (!caId) return []
      const crls: Buffer[] = []
      let chainPem = ''
      // The CA, then its parents made here: the CRL of each, so a verifier with check_crl has every one.
      for (let id: string | null = caId, first = true; id; first = false) {
        const row: { certificate: string; chain: string; crl_der: Buffer | null; parent_id: string | null } | undefined = await snapshot('pki_cas').where({ id }).first('certificate', 'chain', 'crl_der', 'parent_id')
        if (!row) break
        if (first) chainPem = row.certificate + row.chain
        if (row.crl_der) crls.push(row.crl_der)
        id = row.parent_id
      }
      if (!chainPem) return []
      return [
        { path: 'certs/portcullis/ca.pem', content: chainPem, mode: 0o644 },
        { path: 'certs/portcullis/crl.pem', content: crls.map((d) => toPem(d, 'X509 CRL')).join(''), mode: 0o644 },
      ]
    },
  }
}
