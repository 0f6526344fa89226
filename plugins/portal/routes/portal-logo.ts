/**
 * A portal's logo: an image the guest's page shows (served by the portal at
 * `/portal/{slug}/logo`). PNG, JPEG or GIF only, checked by its first bytes,
 * not only its declared type: SVG is refused (it can carry script).
 */
import { defineRoute, ErrorBody, lockForChange, reply } from '../../../sdk/index.js'
import { PortalErrors as E } from '../errors.js'
import { PORTAL_MANAGE } from '../permissions.js'
import { PortalParams, PortalResponse } from '../schemas/portals.js'
import type { PortalContext } from '../services/context.js'
import { loadPortal, PORTALS } from '../services/portals.js'

export const LOGO_MAX_BYTES = 256 * 1024

const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
}

/** The image type the bytes are, of those allowed; null for anything else. */
export const imageType = (b: Buffer): string | null => Object.keys(SIGNATURES).find((t) => SIGNATURES[t](b)) ?? null

export function portalLogoRoutes(c: PortalContext) {
  return [
    defineRoute({
      method: 'PUT',
      path: '/captive-portal/portals/{portal_id}/logo',
      permission: PORTAL_MANAGE,
      summary: 'Upload a portal\'s logo',
      description:
        'The image itself as the body, `Content-Type` image/png, image/jpeg or image/gif, at most 256 KiB (413 BODY_TOO_LARGE). Another type: 415 BODY_UNSUPPORTED_TYPE; bytes that are not an image of the declared type: 415 PORTAL_LOGO_TYPE. Replaces the previous logo. Audited (the type and size, not the bytes).',
      tags: ['captive-portal'],
      rawBody: { mediaTypes: Object.keys(SIGNATURES), maxBytes: LOGO_MAX_BYTES, description: 'The image.' },
      schema: { params: PortalParams, response: { 200: PortalResponse, 404: ErrorBody, 415: ErrorBody } },
      handler: async (req) => {
        const bytes = req.rawBody!
        const declared = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
        const actual = imageType(bytes)
        if (actual === null || actual !== declared) throw E.logoType({ field: null })
        const id = req.params.portal_id
        return req.transaction(async (trx) => {
          const before = await lockForChange(trx, PORTALS, id, 'portal_id', loadPortal)
          await trx(PORTALS).where({ id }).update({ logo: bytes, logo_type: actual, updated_at: new Date() })
          const after = (await loadPortal(trx, id))!
          await req.audit({ action: 'captive_portal.logo_upload', resourceType: 'captive_portal', resourceId: id, before: { has_logo: before.has_logo }, after: { has_logo: true, logo_type: actual, bytes: bytes.length } }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/captive-portal/portals/{portal_id}/logo',
      permission: PORTAL_MANAGE,
      summary: 'Remove a portal\'s logo',
      description: 'The page then shows the portal\'s name only. Removing a logo there is none of answers 204 all the same.',
      tags: ['captive-portal'],
      schema: { params: PortalParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) => {
        const id = req.params.portal_id
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, PORTALS, id, 'portal_id', loadPortal)
          if (!before.has_logo) return
          await trx(PORTALS).where({ id }).update({ logo: null, logo_type: null, updated_at: new Date() })
          await req.audit({ action: 'captive_portal.logo_delete', resourceType: 'captive_portal', resourceId: id, before: { has_logo: true }, after: { has_logo: false } }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
