/** What the NAC part of the tree is built from (renderers/nac-*.ts), beside FreeradiusConfigInput. */
import type { CompiledNacPolicy } from '../../../sdk/nac-policy.js'

export interface FreeradiusNac {
  /** `source.compile(snapshot)`: the rules in order and the default. */
  policy: CompiledNacPolicy
  /** `source.endpoints(snapshot)`: every known endpoint's canonical MAC, groups and device type. */
  endpoints: readonly { mac: string; endpoint_group_ids: readonly string[]; device_type: string | null }[]
  /**
   * The EAP server certificate and key (server options radius.eap_certificate_file and
   * radius.eap_private_key_file: files on the server, never in the database); null when unset: no eap
   * module, only MAB is served and EAP requests are rejected (`eap_not_configured`).
   */
  eap: { certificateFile: string; privateKeyFile: string } | null
  /** `source.portalRedirectKey(snapshot)`: the key of the signed portal redirections (nac-portal.ts); null: none made yet. */
  portalKey?: string | null
}
