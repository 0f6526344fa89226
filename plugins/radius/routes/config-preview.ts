/**
 * GET /radius/config/preview: the FreeRADIUS files currently deployed on disk
 * (the active release the kernel's deploy pipeline made current), read through
 * the SDK service `coreServices.deploys`. Secret values (every value the render
 * declared, and lines naming one) are `***`, and sizes and hashes those of the masked text, unless the
 * caller asks `?reveal=true` and holds `config.reveal`. A fresh install (nothing
 * deployed) answers 200 with `deployed: false` and a detail saying how to deploy.
 */
import { CommonErrors, defineRoute, DeployedConfigResponse, deployedConfigAnswer, ErrorBody, mayReveal, RevealQuery, type DeploysService } from '../../../sdk/index.js'

export const FREERADIUS_DAEMON = 'freeradius'

export const radiusConfigPreviewRoutes = (deploys: DeploysService, o: { permission?: string; daemon?: string } = {}) => [
  defineRoute({
    method: 'GET',
    path: '/radius/config/preview',
    permission: o.permission ?? 'radius.read',
    summary: 'The FreeRADIUS configuration deployed on disk',
    description:
      'Every file of the active FreeRADIUS release (see POST /deploys), with its size, SHA-256 and mode. Every secret value the release was rendered with (RADIUS secrets, verifiers, the MFA internal key, the directory bind password…), wherever it appears and however it is escaped, and the values of lines naming a secret, key or password, are `***` unless `reveal=true` is given by a caller holding `config.reveal` (403 for `reveal=true` without it). `size` and `sha256` are of the text as shown (masked unless revealed), never of the file on disk. While nothing is deployed (a fresh install) the answer is 200 with `deployed: false`, `release: null`, no files and a `detail` saying how to deploy.',
    tags: ['radius'],
    schema: { query: RevealQuery, response: { 200: DeployedConfigResponse, 403: ErrorBody } },
    handler: async (req) => {
      const reveal = mayReveal(req.actor, req.query.reveal)
      if (req.query.reveal && !reveal) throw CommonErrors.forbidden({ field: 'reveal' })
      const daemon = o.daemon ?? FREERADIUS_DAEMON
      return deployedConfigAnswer(daemon, await deploys.currentFiles(daemon, { reveal }), req.t)
    },
  }),
]
