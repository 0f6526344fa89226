/**
 * GET /radius/config/preview: the FreeRADIUS files currently deployed on disk
 * (the active release the kernel's deploy pipeline made current), read through
 * the SDK service `coreServices.deploys`. Secret values are `***` unless the
 * caller asks `?reveal=true` and holds `config.reveal`.
 */
import { CommonErrors, defineRoute, DeployedConfigResponse, ErrorBody, mayReveal, RevealQuery, type DeploysService } from '../../../sdk/index.js'

export const FREERADIUS_DAEMON = 'freeradius'

export const radiusConfigPreviewRoutes = (deploys: DeploysService, o: { permission?: string; daemon?: string } = {}) => [
  defineRoute({
    method: 'GET',
    path: '/radius/config/preview',
    permission: o.permission ?? 'radius.read',
    summary: 'The FreeRADIUS configuration deployed on disk',
    description:
      'Every file of the active FreeRADIUS release (see POST /deploys), with its size, SHA-256 and mode. Values of lines naming a secret, key or password (`secret`, `Cleartext-Password`, `Crypt-Password`, `NT-Password` …) are `***` unless `reveal=true` is given by a caller holding `config.reveal` (403 for `reveal=true` without it). 404 while nothing is deployed.',
    tags: ['radius'],
    schema: { query: RevealQuery, response: { 200: DeployedConfigResponse, 403: ErrorBody, 404: ErrorBody } },
    handler: async (req) => {
      const reveal = mayReveal(req.actor, req.query.reveal)
      if (req.query.reveal && !reveal) throw CommonErrors.forbidden({ field: 'reveal' })
      const cfg = await deploys.currentFiles(o.daemon ?? FREERADIUS_DAEMON, { reveal })
      if (!cfg) throw CommonErrors.notFound()
      return cfg
    },
  }),
]
