/**
 * The PKI's part of the FreeRADIUS tree (renderer `pki.freeradius`, loaded
 * only beside the radius plugin): with setting pki.freeradius_ca_id set, the
 * CA that FreeRADIUS is to trust for EAP-TLS clients, and its revocation,
 * land in every release next to the radius plugin's files:
 *
 *   certs/portcullis/ca.pem    that CA's certificate and its chain up to the root
 *   certs/portcullis/crl.pem   the current CRL of that CA and of each CA above it made here
 *   certs/portcullis/ca-crl.pem     both in one file: FreeRADIUS 3.2 loads the CRLs to check
 *                                   (check_crl) only from ca_file or a hashed ca_path, and OpenSSL
 *                                   reads certificates and CRLs alike from one ca_file
 *   certs/portcullis/eap-trust.conf  ca_file and check_crl: the radius plugin's eap
 *                                   module includes it ($-INCLUDE), so without a CA set here EAP-TLS
 *                                   trusts nothing and the module still loads (PEAP works)
 *
 * The CRL in a
 * release is the one current at the deploy: a revocation reaches FreeRADIUS
 * at the next deploy.
 */
import type { ConfigRenderer, RenderedFile, SettingsService } from '../../../sdk/index.js'
import { toPem } from './der.js'
import { freeradiusCaId } from '../settings.js'
import { pkiRevokedSince } from './freeradius-revocations.js'

/** Read inside the eap module's tls-config (plugins/radius/renderers/nac-eap.ts). */
const EAP_TRUST = `# Written by Portcullis (renderer pki.freeradius). Do not edit: the next deploy replaces this file.
# The platform CA for EAP-TLS, its CRL checked for the client certificate (check_all_crl, which would check the CAs above too, makes FreeRADIUS 3.2.1 refuse every certificate).
ca_file = "\${confdir}/certs/portcullis/ca-crl.pem"
check_crl = yes
`

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
      const crlPem = crls.map((d) => toPem(d, 'X509 CRL')).join('')
      return [
        { path: 'certs/portcullis/ca.pem', content: chainPem, mode: 0o644 },
        { path: 'certs/portcullis/crl.pem', content: crlPem, mode: 0o644 },
        { path: 'certs/portcullis/ca-crl.pem', content: chainPem + crlPem, mode: 0o644 },
        { path: 'certs/portcullis/eap-trust.conf', content: EAP_TRUST, mode: 0o644 },
      ]
    },
    // A rollback to a release trusting a CA no longer trusted, or without a revocation made since, is refused.
    revokedSince: pkiRevokedSince,
  }
}
