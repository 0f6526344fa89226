/**
 * The PKI's part of the FreeRADIUS tree (renderer `pki.freeradius`, loaded
 * only beside the radius plugin): with setting pki.freeradius_ca_id set, the
 * CA that FreeRADIUS is to trust for EAP-TLS clients (and those of
 * pki.freeradius_extra_ca_ids, trusted the same way), and their revocation,
 * land in every release next to the radius plugin's files:
 *
 *   certs/portcullis/ca.pem    each named CA's certificate and its chain up to the root, each certificate once
 *   certs/portcullis/crl.pem   the current CRL of each named CA and of each CA above it made here
 *   certs/portcullis/ca-crl.pem     both in one file: FreeRADIUS 3.2 loads the CRLs to check
 *                                   (check_crl) only from ca_file or a hashed ca_path, and OpenSSL
 *                                   reads certificates and CRLs alike from one ca_file
 *   certs/portcullis/eap-trust.conf  ca_file and check_crl: the radius plugin's eap module includes
 *                                   it ($-INCLUDE), so without a CA set here EAP-TLS trusts nothing
 *                                   and the module still loads (PEAP works)
 *   certs/portcullis/eap-issuer     unlang the radius plugin's post-auth includes for EAP-TLS: the
 *                                   client certificate's issuer (TLS-Cert-Serial, the certificate one
 *                                   above it in the verified chain) must be one of the named CAs itself
 *
 * Trust exactly the CAs the settings name, not the whole chains ca_file needs: OpenSSL verifies up to a
 * self-signed root, so the root (and every CA between) is in ca_file and anything it signed would
 * verify, and so would one of a sibling CA under that root which the client sends along (it is then
 * refused only for want of its CRL). eap-issuer narrows it to the named CAs: the certificate above the
 * client's in the verified chain must be one of them (its serial). FreeRADIUS 3.2.1's
 * reject_unknown_intermediate_ca is not used: tried here, it failed the handshake of a certificate the
 * named CA (a root) signed ("internal error").
 *
 * The CRL in a
 * release is the one current at the deploy: a revocation reaches FreeRADIUS
 * at the next deploy.
 */
import type { ConfigRenderer, RenderedFile, SettingsService } from '../../../sdk/index.js'
import { toPem } from './der.js'
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { freeradiusCaId, freeradiusExtraCaIds } from '../settings.js'
import { pkiRevokedSince } from './freeradius-revocations.js'
import { freeradiusSerial } from './x509.js'

/** Read inside the eap module's tls-config (plugins/radius/renderers/nac-eap.ts). */
const EAP_TRUST = `# Written by Portcullis (renderer pki.freeradius). Do not edit: the next deploy replaces this file.
# The platform CAs for EAP-TLS (settings pki.freeradius_ca_id, pki.freeradius_extra_ca_ids) and the CAs above them, which OpenSSL needs
# to reach a root; the client certificate's CRL checked (check_all_crl, which would check the CAs above
# too, is left off: FreeRADIUS 3.2.1 then refuses every certificate). A certificate another CA of the
# chain signed, or a sibling CA under the same root, is refused by certs/portcullis/eap-issuer.
ca_file = "\${confdir}/certs/portcullis/ca-crl.pem"
check_crl = yes
`

/** Post-auth of an EAP-TLS request (renderers/nac-site.ts): the issuer must be one of the named CAs itself. */
export function eapIssuerCheck(trusted: readonly { serial: string; name: string }[]): string {
  if (!trusted.length) throw new Error('pki.freeradius: no CA to trust')
  for (const { serial } of trusted) if (!/^[0-9a-f]{2,128}$/.test(serial)) throw new Error(`pki.freeradius: CA serial ${serial} cannot be compared`)
  // TLS-Cert-Serial is tested present first: comparing an absent attribute adds a Module-Failure-Message that would hide the reason.
  const other = trusted.map((c) => `&TLS-Cert-Serial != "${c.serial}"`).join(' && ')
  return `# Written by Portcullis (renderer pki.freeradius). Do not edit: the next deploy replaces this file.
# EAP-TLS: only a client certificate one of these CAs (settings pki.freeradius_ca_id, pki.freeradius_extra_ca_ids)
# signed itself. TLS-Cert-Serial is the serial of the certificate above the client's in the verified chain: its issuer.
${trusted.map((c) => `#   ${c.serial}  ${c.name.replace(/[^\x20-\x7e]/g, '?')}`).join('\n')}
if (!&TLS-Cert-Serial || (${other})) {
	update request {
		&Module-Failure-Message := "EAP-TLS: the client certificate was not issued by a CA FreeRADIUS trusts (settings pki.freeradius_ca_id, pki.freeradius_extra_ca_ids)"
	}
	update control {
		&${CONTROL_ATTRIBUTES.rejectReason} := "eap_failed"
	}
	reject
}
`
}

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----\n?/g

type CaRow = { id: string; certificate: string; chain: string; crl_der: Buffer | null; parent_id: string | null; name: string }

export function freeradiusCertificates(settings: SettingsService): ConfigRenderer {
  return {
    id: 'pki.freeradius',
    daemon: 'freeradius',
    async render(snapshot): Promise<RenderedFile[]> {
      const caId = await settings.get(freeradiusCaId, snapshot)
      // Without pki.freeradius_ca_id, EAP-TLS trusts nothing: the extra CAs widen a trust, they do not start one.
      if (!caId) return []
      const extra = await settings.get(freeradiusExtraCaIds, snapshot)
      const rows = new Map<string, CaRow | undefined>()
      const row = async (id: string) => {
        if (!rows.has(id)) rows.set(id, await snapshot('pki_cas').where({ id }).first('id', 'certificate', 'chain', 'crl_der', 'parent_id', 'name'))
        return rows.get(id)
      }
      const certs = new Map<string, string>() // DER (base64) → its PEM block, each once, in order
      const crls = new Map<string, Buffer>() // CA id → its CRL, each once
      const named: { serial: string; name: string }[] = []
      for (const id of [caId, ...extra.filter((e) => e !== caId)]) {
        const ca = await row(id)
        if (!ca) continue
        named.push({ serial: freeradiusSerial(ca.certificate), name: ca.name })
        for (const block of (ca.certificate.replace(/\n?$/, '\n') + ca.chain).match(CERTIFICATE) ?? []) {
          const key = block.replace(/-----[A-Z ]+-----|\s/g, '')
          if (!certs.has(key)) certs.set(key, block.endsWith('\n') ? block : block + '\n')
        }
        // The CA, then its parents made here: the CRL of each, so a verifier with check_crl has every one.
        for (let p: CaRow | undefined = ca; p; p = p.parent_id ? await row(p.parent_id) : undefined) if (p.crl_der && !crls.has(p.id)) crls.set(p.id, p.crl_der)
      }
      if (!named.length) return []
      const chainPem = [...certs.values()].join('')
      const crlPem = [...crls.values()].map((d) => toPem(d, 'X509 CRL')).join('')
      return [
        { path: 'certs/portcullis/ca.pem', content: chainPem, mode: 0o644 },
        { path: 'certs/portcullis/crl.pem', content: crlPem, mode: 0o644 },
        { path: 'certs/portcullis/ca-crl.pem', content: chainPem + crlPem, mode: 0o644 },
        { path: 'certs/portcullis/eap-trust.conf', content: EAP_TRUST, mode: 0o644 },
        { path: 'certs/portcullis/eap-issuer', content: eapIssuerCheck(named), mode: 0o644 },
      ]
    },
    // A rollback to a release trusting a CA no longer trusted, or without a revocation made since, is refused.
    revokedSince: pkiRevokedSince,
  }
}
