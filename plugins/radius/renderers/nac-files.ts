/**
 * The NAC files of a release (renderers/nac-*.ts). The four includes of the default server are in
 * every release (comments only without a NAC policy source); the policy, the lookups and the eap
 * module only with one, the eap module and the inner tunnel only with the EAP server options set.
 */
import type { RenderedFile } from '../../../sdk/index.js'
import type { FreeradiusConfigInput } from './input.js'
import { DICTIONARY_FILE } from './nac-attributes.js'
import { eapModule, innerServer } from './nac-eap.js'
import { NAC_LOOKUP_MODULES, nacClients, nacEndpoints, nacUsers } from './nac-lookup.js'
import { nacPolicyUnlang } from './nac-policy.js'
import { nacAuthenticate, nacAuthorize, nacPostAuth, nacReject } from './nac-site.js'
import { PORTAL_SIGN_FILE, portalSecrets, portalSignFile } from './nac-portal.js'
import { FreeradiusRenderError } from './syntax.js'

export function nacFiles(input: FreeradiusConfigInput): RenderedFile[] {
  const nac = input.nac ?? null
  const files: RenderedFile[] = [
    { path: 'dictionary', content: DICTIONARY_FILE, mode: 0o644 },
    { path: 'portcullis/nac-authorize', content: nacAuthorize(nac), mode: 0o644 },
    { path: 'portcullis/nac-authenticate', content: nacAuthenticate(nac), mode: 0o644 },
    { path: 'portcullis/nac-post-auth', content: nacPostAuth(nac), mode: 0o644 },
    { path: 'portcullis/nac-reject', content: nacReject(nac), mode: 0o644 },
    { path: 'sites-enabled/portcullis-inner', content: innerServer(nac?.eap ? nac : null), mode: 0o644 },
  ]
  if (!nac) return files
  const all = [...nac.policy.rules.map((r) => r.authorization), nac.policy.default.authorization]
  const portal = all.find((a) => a.reply.some((r) => r.portal_session))
  if (portal && !nac.portalKey) throw new FreeradiusRenderError(`authorization profile ${portal.profile_name} redirects to a captive portal, but setting nac.portal_redirect_key is null: set a key (32 to 128 letters, digits, - or _)`)
  files.push(
    // The key of the signed portal redirections: mode 0600, and no view of the release shows it.
    { path: PORTAL_SIGN_FILE, content: portalSignFile(nac), mode: 0o600, secrets: portalSecrets(nac) },
    { path: 'portcullis/nac-policy', content: nacPolicyUnlang(nac.policy), mode: 0o644 },
    { path: 'portcullis/nac-endpoints', content: nacEndpoints(nac), mode: 0o644 },
    { path: 'portcullis/nac-users', content: nacUsers(input), mode: 0o644 },
    { path: 'portcullis/nac-clients', content: nacClients(input), mode: 0o644 },
    { path: 'mods-enabled/portcullis_nac', content: NAC_LOOKUP_MODULES, mode: 0o644 },
  )
  if (nac.eap) files.push({ path: 'mods-enabled/portcullis_eap', content: eapModule(nac.eap), mode: 0o644 })
  return files
}
