/**
 * EST (RFC 7030) at /.well-known/est/: cacerts and csrattrs without
 * credentials, simpleenroll with HTTP Basic (a local account's password,
 * argon2id, of a member of the group `pki.est_group_id`) or mutual TLS,
 * simplereenroll with mutual TLS only (services/mtls.ts: the front end's
 * headers, believed only with the proxy key). Wire formats as the RFC has
 * them: a base64 PKCS#10 in (application/pkcs10), base64 PKCS#7 certs-only
 * out (application/pkcs7-mime, Content-Transfer-Encoding: base64). Every
 * route answers 404 unless EST is on and configured (settings.ts).
 * With pki.est_approval_required on, enrollments wait for a person (202 with
 * Retry-After until approved; services/est-queue.ts, routes/est-approval.ts).
 */
import { CommonErrors, defineRoute, ErrorBody, identitySettingRefs, isPortcullisError, PortcullisError, PUBLIC, reply, Type, type RouteRequest } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import { toPem } from '../services/der.js'
import { enforceTemplate, issue, readCsr } from '../services/issue.js'
import { base64Lines, certsOnly, fromBase64Body } from '../services/pkcs7.js'
import { pemBlocks } from '../services/der.js'
import { presentedCertificate } from '../services/mtls.js'
import { estApprovalRequired, estCaId, estEnabled, estGroupId, estMtlsProxySecret, estTemplateId } from '../settings.js'
import { sanText, type ParsedCsr } from '../services/csr.js'
import type { PkiContext } from './context.js'
import { loadTemplate } from './templates.js'
import { why, type Phrase } from '../services/why.js'

const CERTS_ONLY = 'application/pkcs7-mime; smime-type=certs-only'
const EST_DOWNLOAD = {
  mediaTypes: ['application/pkcs7-mime'],
  headers: { 'Content-Transfer-Encoding': { description: '`base64`', schema: Type.Literal('base64'), required: true } },
}
/** What a held enrollment tells the client to wait before polling again. */
const RETRY_AFTER_SECONDS = 60
const REALM = { 'WWW-Authenticate': 'Basic realm="EST", charset="UTF-8"' }

/** What the API refuses with 422 is, to an EST client, a bad request (RFC 7030 4.2.3). */
function asBadRequest(e: unknown): unknown {
  return isPortcullisError(e) && e.status === 422 ? new PortcullisError(400, e.code, e.messageKey, { field: e.field, vars: e.vars }) : e
}

export function estRoutes(c: PkiContext) {
  /** The CA and template EST issues with, or 404: EST is off or not configured. */
  async function config() {
    const [on, caId, templateId, groupId] = await Promise.all([c.settings.get(estEnabled), c.settings.get(estCaId), c.settings.get(estTemplateId), c.settings.get(estGroupId)])
    const ca = on && caId ? await c.signers.get(caId) : null
    const template = on && templateId ? await loadTemplate(c.knex, templateId) : null
    if (!ca || !template || !groupId) throw CommonErrors.notFound()
    return { ca, template, groupId, chain: pemBlocks((await c.knex('pki_cas').where({ id: ca.id }).first('chain'))?.chain ?? '', 'CERTIFICATE') }
  }

  type Req = RouteRequest<unknown, unknown, unknown>
  type Config = Awaited<ReturnType<typeof config>>

  /** The Basic credentials of a member of the EST group: the username, or 401 / 403 (audited). */
  async function basicMember(req: Req, groupId: string): Promise<string> {
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? '')
    const decoded = basic ? Buffer.from(basic[1], 'base64').toString('utf8') : ''
    const colon = decoded.indexOf(':')
    if (colon < 1) throw PkiErrors.estCredentialsRequired({ headers: REALM })
    const username = decoded.slice(0, colon)
    const user = await c.identity.checkPassword(username, decoded.slice(colon + 1))
    if (!user) {
      await req.auditNow({ action: 'est.enroll', outcome: 'failure', reason: 'bad_credentials', userId: null, username: username.slice(0, 64) })
      throw PkiErrors.estCredentialsRequired({ headers: REALM })
    }
    if (!(await c.identity.groupIdsOf(user.id)).includes(groupId)) {
      await req.auditNow({ action: 'est.enroll', outcome: 'failure', reason: 'not_in_est_group', userId: user.id, username: user.username })
      throw PkiErrors.estForbidden()
    }
    return user.username
  }

  async function userIdOf(username: string): Promise<string | null> {
    return (await c.identity.findUser({ username }))?.id ?? null
  }

  /**
   * FreeRADIUS takes an EAP-TLS certificate's common name as the user, so an enrollment may name only
   * what its enroller may claim: the account's own user name, or a device name that is no user's
   * (else 403, nothing issued or held). `claimant`: the account that enrolled (Basic) or that enrolled
   * the certificate presented (mutual TLS); null: a device certificate nobody's account enrolled.
   */
  async function assertClaimable(csr: ParsedCsr, claimant: string | null) {
    for (const p of csr.subjectParts) {
      if (p.type !== 'CN' || (claimant !== null && p.value.toLowerCase() === claimant.toLowerCase())) continue
      if (await c.identity.findUser({ username: p.value })) throw PkiErrors.estSubjectNotClaimable({ field: 'csr', vars: { name: p.value } })
    }
  }

  /** The user name of the account that enrolled a certificate, when an account did. */
  async function enrollerOf(cert: { issued_by: string | null }): Promise<string | null> {
    return cert.issued_by ? ((await c.identity.findUser({ id: cert.issued_by }))?.username ?? null) : null
  }

  /**
   * The client certificate the trusted front end reports, as our record of it: issued by the EST CA,
   * unrevoked, unexpired. Null without trusted mutual TLS when not `required`; else 403 saying why.
   */
  async function clientCertificate(req: Req, caId: string, required: boolean) {
    const presented = presentedCertificate(req.headers, await c.settings.get(estMtlsProxySecret))
    const refuse = (reason: Phrase) => {
      if (!required) return null
      throw PkiErrors.estCertificateRefused({ vars: { reason } })
    }
    if (!presented) return refuse(why('est_no_certificate'))
    const row = await c.knex('pki_certificates').where({ ca_id: caId, serial: presented.serial }).first('id', 'serial', 'subject', 'san', 'revoked_at', 'not_after', 'issued_by')
    if (!row) return refuse(why('est_not_issued', { serial: presented.serial }))
    if (row.revoked_at) return refuse(why('est_revoked', { serial: presented.serial }))
    if (row.not_after <= new Date()) return refuse(why('est_expired', { serial: presented.serial }))
    return row
  }

  async function enroll(req: Req, { ca, template }: Config, who: { by: string; userId: string | null; claimant: string | null; renews: { id: string; subject: string; san: string } | null }) {
    const now = new Date()
    if (ca.notAfter <= now) throw CommonErrors.notFound()
    let csr
    let der: Buffer | null
    try {
      der = fromBase64Body(req.rawBody!)
      if (!der) throw PkiErrors.csrInvalid({ field: 'csr', vars: { reason: why('body_not_base64') } })
      csr = readCsr(toPem(der, 'CERTIFICATE REQUEST'))
      if (who.renews && (csr.subject !== who.renews.subject || csr.san.map(sanText).join(', ') !== who.renews.san)) {
        throw PkiErrors.estSubjectMismatch({ field: 'csr', vars: { subject: who.renews.subject, san: who.renews.san || '-' } })
      }
      enforceTemplate(csr, template)
    } catch (e) {
      throw asBadRequest(e)
    }
    await assertClaimable(csr, who.claimant)
    const answer = (certDer: Buffer) => reply({ status: 200, body: base64Lines(certsOnly([certDer])), contentType: CERTS_ONLY, headers: { 'Content-Transfer-Encoding': 'base64' } })
    // Held for approval: the same CSR polled again finds its request (est-queue.ts).
    let approved: string | null = null
    if (await c.settings.get(estApprovalRequired)) {
      const held = await c.queue.poll(req, { der, csr, requester: who.by, requesterUserId: who.userId, renewsId: who.renews?.id ?? null })
      if (held.state === 'waiting') return reply({ status: 202, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } })
      if (held.state === 'issued') return answer(held.certificateDer)
      approved = held.requestId
    }
    const issued = issue({ csr, template, ca, publicUrl: await c.settings.get(identitySettingRefs.publicUrl), now })
    const row = issued.row
    const done = await req.transaction(async (trx) => {
      if (approved && !(await c.queue.claim(trx, approved))) return false
      const [saved] = await trx('pki_certificates').insert({ ...row, issued_by: who.userId }).returning(['id', 'serial', 'subject'])
      if (approved) await c.queue.issuedAs(trx, approved, saved.id)
      const after = { ...saved, san: row.san, via: 'est', enrolled_by: who.by, ...(who.renews ? { renews: who.renews.id } : {}), ...(approved ? { est_request: approved } : {}) }
      await req.audit({ action: 'pki_certificate.issue', resourceType: 'pki_certificate', resourceId: saved.id, after }, trx)
      return true
    })
    if (!done) return reply({ status: 202, headers: { 'Retry-After': '1' } })
    return answer(issued.der)
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/.well-known/est/cacerts',
      root: true,
      permission: PUBLIC,
      summary: 'EST: the CA certificates (RFC 7030 4.1)',
      description: 'The EST CA\'s certificate and its chain, base64 PKCS#7 certs-only. 404 while EST is off or not configured (nac.est_enabled, pki.est_ca_id, pki.est_template_id, pki.est_group_id).',
      tags: ['pki'],
      download: EST_DOWNLOAD,
      schema: { response: { 200: 'file', 404: ErrorBody } },
      handler: async () => {
        const { ca, chain } = await config()
        return reply({ status: 200, body: base64Lines(certsOnly([ca.certificateDer, ...chain])), contentType: 'application/pkcs7-mime', headers: { 'Content-Transfer-Encoding': 'base64' } })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/.well-known/est/csrattrs',
      root: true,
      permission: PUBLIC,
      summary: 'EST: CSR attributes (RFC 7030 4.5)',
      description: 'No attributes are asked for: 204 (4.5.2). What a request may carry is the template\'s to say, and a refusal names it. 404 while EST is off.',
      tags: ['pki'],
      schema: { response: { 204: null, 404: ErrorBody } },
      handler: async () => {
        await config()
        return reply({ status: 204 })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/.well-known/est/simpleenroll',
      root: true,
      permission: PUBLIC,
      summary: 'EST: enroll (RFC 7030 4.2)',
      description:
        'HTTP Basic: a local account\'s username and password (argon2id; a directory-only, disabled or unknown account is refused the same way: 401 with WWW-Authenticate) of a member of the group pki.est_group_id (else 403 PKI_EST_FORBIDDEN). The common name is the EAP-TLS user: it must be the account\'s own user name, or a name that is no user\'s (else 403 PKI_EST_SUBJECT_NOT_CLAIMABLE); over mutual TLS, the user name of the account that enrolled the presented certificate, or no user\'s. Or, without an Authorization header, mutual TLS: a client certificate the EST CA issued, unrevoked and unexpired, as the trusted front end reports it. The body is the base64 PKCS#10 (application/pkcs10), held to the template pki.est_template_id as the API holds a CSR: a refusal is 400 with the same code (PKI_CSR_INVALID, PKI_KEY_TOO_WEAK, PKI_SUBJECT_FORBIDDEN …), nothing issued. Answers the certificate as base64 PKCS#7 certs-only. Failures are audited as `est.enroll`; an issue as `pki_certificate.issue` (via `est`). Rate-limited per client address.',
      tags: ['pki'],
      rateLimit: { max: 20, windowSeconds: 60 },
      auditAs: 'est.enroll',
      rawBody: { mediaTypes: ['application/pkcs10'], maxBytes: 16_384, description: 'Base64 of the DER PKCS#10 (Content-Transfer-Encoding: base64).' },
      download: EST_DOWNLOAD,
      schema: { response: { 200: 'file', 202: null, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const cfg = await config()
        // Explicit credentials first: a device sending Basic is judged by them.
        if (req.headers.authorization !== undefined || !(await clientCertificate(req, cfg.ca.id, false))) {
          const username = await basicMember(req, cfg.groupId)
          return enroll(req, cfg, { by: username, userId: await userIdOf(username), claimant: username, renews: null })
        }
        const cert = (await clientCertificate(req, cfg.ca.id, true))!
        return enroll(req, cfg, { by: `certificate ${cert.serial}`, userId: null, claimant: await enrollerOf(cert), renews: null })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/.well-known/est/simplereenroll',
      root: true,
      permission: PUBLIC,
      summary: 'EST: re-enroll (RFC 7030 4.2.2)',
      description:
        'Mutual TLS only: the client certificate (as the front end reports it, believed only with X-Est-Proxy-Key equal to nac.est_mtls_proxy_secret) must be one the EST CA issued, unrevoked and unexpired (else 403 PKI_EST_CERTIFICATE_REFUSED), and the new CSR must carry its subject and subject alternative names (else 400 PKI_EST_SUBJECT_MISMATCH), whose common name is still one it may claim (403 PKI_EST_SUBJECT_NOT_CLAIMABLE). Otherwise as simpleenroll. Audited as `pki_certificate.issue` (via `est`, `renews` the old certificate\'s id).',
      tags: ['pki'],
      rateLimit: { max: 20, windowSeconds: 60 },
      auditAs: 'est.enroll',
      rawBody: { mediaTypes: ['application/pkcs10'], maxBytes: 16_384, description: 'Base64 of the DER PKCS#10 (Content-Transfer-Encoding: base64).' },
      download: EST_DOWNLOAD,
      schema: { response: { 200: 'file', 202: null, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const cfg = await config()
        const cert = (await clientCertificate(req, cfg.ca.id, true))!
        return enroll(req, cfg, { by: `certificate ${cert.serial}`, userId: null, claimant: await enrollerOf(cert), renews: cert })
      },
    }),
  ]
}
