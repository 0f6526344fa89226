/**
 * The pki plugin's contract: what other plugins read of the CAs (the NAC work
 * that adds EAP reads a CA's chain and current CRL here; the FreeRADIUS tree
 * already gets them from pki's own renderer, services/freeradius.ts).
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

export interface PkiService {
  getCa(id: string): Promise<PkiCaView | null>
  /** The CA's current CRL (DER), null before the first. */
  currentCrl(caId: string): Promise<Buffer | null>
  /** Makes every CRL whose nextUpdate is less than half its life away, and drops the bundles of expired download links (what the schedule runs). */
  refreshDueCrls(now?: Date): Promise<number>
}

export const pkiServiceRef = createServiceRef<PkiService>({ id: 'pki.service' })
