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
 *   certs/portcullis/eap-trust.conf  ca_file and check_crl: the radius plugin's eap module includes
 *                                   it ($-INCLUDE), so without a CA set here EAP-TLS trusts nothing
 *                                   and the module still loads (PEAP works)
 *   certs/portcullis/eap-issuer     unlang the radius plugin's post-auth includes for EAP-TLS: the
 *                                   client certificate's issuer (TLS-Cert-Serial, the certificate one
 *                                   above it in the verified chain) must be that CA itself
 *
 * Trust exactly the CA the setting names, not the whole chain ca_file needs: OpenSSL verifies up to a
 * self-signed root, so the root (and every CA between) is in ca_file and anything it signed would
 * verify, and so would one of a sibling CA under that root which the client sends along (it is then
 * refused only for want of its CRL). eap-issuer narrows it to the named CA: the certificate above the
 * client's in the verified chain must be that one (its serial). FreeRADIUS 3.2.1's
 * reject_unknown_intermediate_ca is not used: tried here, it failed the handshake of a certificate the
 * named CA (a root) signed ("internal error").
 *
 * The CRL in a
 * release is the one current at the deploy: a revocation reaches FreeRADIUS
 * at the next deploy.
 */
import type { ConfigRenderer, RenderedFile, SettingsService } from '../../../sdk/index.js'
import { children, content, expectTag, readRoot, toPem } from './der.js'
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { freeradiusCaId } from '../settings.js'
import { pkiRevokedSince } from './freeradius-revocations.js'

/** Read inside the eap module's tls-config (plugins/radius/renderers/nac-eap.ts). */
const EAP_TRUST = `# Written by Portcullis (renderer pki.freeradius). Do not edit: the next deploy replaces this file.
# The platform CA for EAP-TLS (setting pki.freeradius_ca_id) and the CAs above it, which OpenSSL needs
# to reach a root; the client certificate's CRL checked (check_all_crl, which would check the CAs above
# too, is left off: FreeRADIUS 3.2.1 then refuses every certificate). A certificate another CA of the
# chain signed, or a sibling CA under the same root, is refused by certs/portcullis/eap-issuer.
ca_file = "\${confdir}/certs/portcullis/ca-crl.pem"
check_crl = yes
`

/**
 * The serial of a certificate as FreeRADIUS 3.2 writes TLS-Cert-Serial: the bytes of the DER
 * INTEGER (a leading 00 kept), lower-case hex.
 */
export function freeradiusSerial(pem: string): string {
  const der = Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64')
  const tbs = children(expectTag(readRoot(der), 0x30, 'certificate'))[0]
  const f = children(tbs)
  return content(f[f[0].tag === 0xa0 ? 1 : 0]).toString('hex')
}

/** Post-auth of an EAP-TLS request (renderers/nac-site.ts): the issuer must be the CA itself. */
export function eapIssuerCheck(serial: string, caName: string): string {
  if (!/^[0-9a-f]{2,128}$/.test(serial)) throw new Error(`pki.freeradius: CA serial ${serial} cannot be compared`)
  return `# Written by Portcullis (renderer pki.freeradius). Do not edit: the next deploy replaces this file.
# EAP-TLS: only a client certificate CA ${caName.replace(/[^\x20-\x7e]/g, '?')} (setting pki.freeradius_ca_id) signed itself. TLS-Cert-Serial is
# the serial of the certificate above the client's in the verified chain: its issuer.
if (!&TLS-Cert-Serial || &TLS-Cert-Serial != "${serial}") {
	update request {
		&Module-Failure-Message := "EAP-TLS: the client certificate was not issued by the CA FreeRADIUS trusts (setting pki.freeradius_ca_id)"
	}
	update control {
		&${CONTROL_ATTRIBUTES.rejectReason} := "eap_failed"
	}
	reject
}
`
}

export function freeradiusCertificates(settings: SettingsService): ConfigRenderer {
  return {
    id: 'pki.freeradius',
    daemon: 'freeradius',
    async render(snapshot): Promise<RenderedFile[]> {
      const caId = await settings.get(freeradiusCaId, snapshot)
      if (!caId) return []
      const crls: Buffer[] = []
      let chainPem = ''
      let named: { certificate: string; name: string } | null = null
      // The CA, then its parents made here: the CRL of each, so a verifier with check_crl has every one.
      for (let id: string | null = caId, first = true; id; first = false) {
        const row: { certificate: string; chain: string; crl_der: Buffer | null; parent_id: string | null; name: string } | undefined = await snapshot('pki_cas').where({ id }).first('certificate', 'chain', 'crl_der', 'parent_id', 'name')
        if (!row) break
        if (first) {
          chainPem = row.certificate + row.chain
          named = row
        }
        if (row.crl_der) crls.push(row.crl_der)
        id = row.parent_id
      }
      if (!chainPem || !named) return []
      const crlPem = crls.map((d) => toPem(d, 'X509 CRL')).join('')
      return [
        { path: 'certs/portcullis/ca.pem', content: chainPem, mode: 0o644 },
        { path: 'certs/portcullis/crl.pem', content: crlPem, mode: 0o644 },
        { path: 'certs/portcullis/ca-crl.pem', content: chainPem + crlPem, mode: 0o644 },
        { path: 'certs/portcullis/eap-trust.conf', content: EAP_TRUST, mode: 0o644 },
        { path: 'certs/portcullis/eap-issuer', content: eapIssuerCheck(freeradiusSerial(named.certificate), named.name), mode: 0o644 },
      ]
    },
    // A rollback to a release trusting a CA no longer trusted, or without a revocation made since, is refused.
    revokedSince: pkiRevokedSince,
  }
}
