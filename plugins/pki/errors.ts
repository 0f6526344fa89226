/** The plugin's coded errors; messages live in locales/ under the `pki` namespace. */
import { defineError } from '../../sdk/index.js'

export const PkiErrors = {
  caNameTaken: defineError(409, 'PKI_CA_NAME_TAKEN', 'pki:errors.ca_name_taken'),
  templateNameTaken: defineError(409, 'PKI_TEMPLATE_NAME_TAKEN', 'pki:errors.template_name_taken'),
  templateInUse: defineError(409, 'PKI_TEMPLATE_IN_USE', 'pki:errors.template_in_use'),
  caNotFound: defineError(422, 'PKI_CA_NOT_FOUND', 'pki:errors.ca_not_found'),
  templateNotFound: defineError(422, 'PKI_TEMPLATE_NOT_FOUND', 'pki:errors.template_not_found'),
  caExpired: defineError(422, 'PKI_CA_EXPIRED', 'pki:errors.ca_expired'),
  parentNotRoot: defineError(422, 'PKI_PARENT_NOT_ROOT', 'pki:errors.parent_not_root'),
  importInvalid: defineError(422, 'PKI_IMPORT_INVALID', 'pki:errors.import_invalid'),
  keyMismatch: defineError(422, 'PKI_KEY_MISMATCH', 'pki:errors.key_mismatch'),
  chainInvalid: defineError(422, 'PKI_CHAIN_INVALID', 'pki:errors.chain_invalid'),
  csrInvalid: defineError(422, 'PKI_CSR_INVALID', 'pki:errors.csr_invalid'),
  csrSignatureInvalid: defineError(422, 'PKI_CSR_SIGNATURE_INVALID', 'pki:errors.csr_signature_invalid'),
  keyUnsupported: defineError(422, 'PKI_KEY_UNSUPPORTED', 'pki:errors.key_unsupported'),
  keyTooWeak: defineError(422, 'PKI_KEY_TOO_WEAK', 'pki:errors.key_too_weak'),
  subjectForbidden: defineError(422, 'PKI_SUBJECT_FORBIDDEN', 'pki:errors.subject_forbidden'),
  sanForbidden: defineError(422, 'PKI_SAN_FORBIDDEN', 'pki:errors.san_forbidden'),
  namePatternInvalid: defineError(422, 'PKI_NAME_PATTERN_INVALID', 'pki:errors.name_pattern_invalid'),
  alreadyRevoked: defineError(409, 'PKI_CERTIFICATE_REVOKED', 'pki:errors.already_revoked'),
  estCredentialsRequired: defineError(401, 'PKI_EST_CREDENTIALS_REQUIRED', 'pki:errors.est_credentials_required'),
  estForbidden: defineError(403, 'PKI_EST_FORBIDDEN', 'pki:errors.est_forbidden'),
  passphraseRequired: defineError(422, 'PKI_PASSPHRASE_REQUIRED', 'pki:errors.passphrase_required'),
  downloadNotFound: defineError(404, 'PKI_DOWNLOAD_NOT_FOUND', 'pki:errors.download_not_found'),
  downloadSpent: defineError(410, 'PKI_DOWNLOAD_SPENT', 'pki:errors.download_spent'),
  downloadExpired: defineError(410, 'PKI_DOWNLOAD_EXPIRED', 'pki:errors.download_expired'),
} as const
