/**
 * The pki plugin's contract: what other plugins read of the CAs (the NAC work
 * that adds EAP reads a CA's chain and current CRL here; the FreeRADIUS tree
 * already gets them from pki's own renderer, services/freeradius.ts), and the captive portal's
 * BYOD onboarding issues a user's EAP-TLS client certificate here.
 */
import { createServiceRef } from '../../sdk/index.js'

export interface PkiCaView {
  id: string
  name: string
  kind: 'root' | 'issuing'
  subject: string
  /** PEM: the CA certificate, then the certificates above it up to the root. */
  chainPem: string
  notAfter: Date
}

/** A client certificate for a user's device (the captive portal's BYOD onboarding). */
export interface UserCertificateRequest {
  userId: string
  /** The subject CN: the user's username (FreeRADIUS takes the CN as the EAP-TLS user). */
  commonName: string
  /** Default: setting pki.freeradius_ca_id, the CA FreeRADIUS trusts for EAP-TLS client certificates. */
  caId?: string | null
  /** Default and most: the validity of the `eap-tls-client` template (shorter is cut, never longer). */
  validityDays?: number
}

export interface IssuedUserCertificate {
  certificateId: string
  /** `identity.public_url` + the path when it is set, else the path (`/api/v1/public/cert-download/{token}`). */
  downloadUrl: string
  downloadToken: string
  /** The PKCS#12 bundle's passphrase, made at random: show it to the user once, beside the link; it is not stored. */
  passphrase: string
  /** When the link stops delivering (ISO). */
  expiresAt: string
}

export interface PkiService {
  getCa(id: string): Promise<PkiCaView | null>
  /** The CA's current CRL (DER), null before the first. */
  currentCrl(caId: string): Promise<Buffer | null>
  /** Makes every CRL whose nextUpdate is less than half its life away, and drops the bundles of expired download links (what the schedule runs). */
  refreshDueCrls(now?: Date): Promise<number>
  /**
   * Issues an EAP-TLS client certificate (template `eap-tls-client`) for the user, with a key made on
   * the server, delivered once as a PKCS#12 bundle through the one-time download link
   * (`POST /api/v1/public/cert-download/{token}`), as an administrator's generate and download link
   * would. Audited (`pki_certificate.issue`, `pki_download.create`, no actor: the caller audits who
   * asked). The certificate is the user's as every certificate naming them is: revoked when the
   * user is deleted, refused by EAP-TLS once revoked. 422 for an unknown, disabled or expired user,
   * a CN that is not the username (`commonName`), no CA (`caId`) or an expired one, no template.
   */
  issueUserCertificate(r: UserCertificateRequest): Promise<IssuedUserCertificate>
}

export const pkiServiceRef = createServiceRef<PkiService>({ id: 'pki.service' })
