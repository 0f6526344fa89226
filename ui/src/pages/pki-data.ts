/**
 * What the PKI screens share: the API's record types, the CAs and templates
 * (the pickers and the lists need them all: a handful each), the choices the
 * API takes, and saving a PEM the answer already holds as a file.
 */
import { useQuery } from '@tanstack/react-query'
import { api, saveBlob } from '../api/client'
import type { components } from '../generated/api'

type S = components['schemas']
export type Ca = S['CaResponse']
export type Certificate = S['CertificateResponse']
export type Template = S['TemplateResponse']

export const CA_KEY_ALGORITHMS = ['ECDSA-P256', 'ECDSA-P384', 'RSA-3072', 'RSA-4096'] as const
export const LEAF_KEY_ALGORITHMS = ['ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-3072', 'RSA-4096'] as const
/** RFC 5280 reasons the API revokes with (no certificateHold: revocation is final). */
export const REASONS = ['unspecified', 'keyCompromise', 'cACompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'privilegeWithdrawn', 'aACompromise'] as const
export const STATUS_COLOR: Record<string, string> = { valid: 'green', revoked: 'red', expired: 'gray' }

export const useCas = () => useQuery({ queryKey: ['pki', 'cas'], queryFn: () => api.get('/api/v1/pki/cas') })
export const useTemplates = () => useQuery({ queryKey: ['pki', 'templates'], queryFn: () => api.get('/api/v1/pki/templates') })

/** The public CRL of a CA (no credentials: a plain link downloads it). */
export const crlUrl = (caId: string, format: 'pem' | 'crl') => `/api/v1/public/crl/${caId}.${format}`

/** Hands text the page already has (a PEM from the answer) to the browser as a file. */
export function saveText(name: string, text: string, type = 'application/x-pem-file'): void {
  saveBlob(name, new Blob([text], { type }))
}

/** A file name from a CA name or serial: letters, digits, dot, dash. */
export const fileName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_')
