import type { LocalizedText } from '../../sdk/index.js'

/** Read CAs, templates, certificates (never a private key: nothing answers one). */
export const PKI_VIEW = 'pki.view'
/** Issue a certificate from a CSR under a template. */
export const PKI_ISSUE = 'pki.issue'
/** Revoke a certificate (a new CRL follows at once). */
export const PKI_REVOKE = 'pki.revoke'
/** Create and import CAs, create and delete templates: who holds it decides what the CA will sign. */
export const PKI_MANAGE = 'pki.manage'

export const pkiPermissions: Record<string, LocalizedText> = {
  [PKI_VIEW]: { en: 'See certificate authorities, templates and certificates.', ru: 'Просмотр центров сертификации, шаблонов и сертификатов.' },
  [PKI_ISSUE]: { en: 'Issue certificates from certificate signing requests.', ru: 'Выпуск сертификатов по запросам на подпись.' },
  [PKI_REVOKE]: { en: 'Revoke certificates.', ru: 'Отзыв сертификатов.' },
  [PKI_MANAGE]: { en: 'Create and import certificate authorities; create and delete certificate templates.', ru: 'Создание и импорт центров сертификации; создание и удаление шаблонов сертификатов.' },
}
