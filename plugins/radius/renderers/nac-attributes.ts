/**
 * The tree's own dictionary (`dictionary` at the top of the release, which FreeRADIUS 3.2 reads
 * after its packaged ones): internal attributes (numbers 3000–3999 are never sent on the wire) that
 * carry what the NAC part of the tree knows about a request, from the lookups to the policy and the
 * log. Named attributes rather than more Tmp-String-N: a request holds several endpoint and user
 * groups, and the log names the method (sdk/logs/freeradius.ts CONTROL_ATTRIBUTES.nacMethod).
 * Written in every release (the log module names Portcullis-NAC-Method), with NAC or without.
 */
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { HEADER } from './syntax.js'

export const NAC_ATTRIBUTES = {
  /** `peap`, `eap-tls`, `mab` (sdk/nac-policy.ts NacMethod), or `eap` until post-auth knows which EAP method ran. */
  method: CONTROL_ATTRIBUTES.nacMethod,
  /** The Calling-Station-Id in the nac plugin's canonical form (aa:bb:cc:dd:ee:ff). */
  mac: 'Portcullis-NAC-MAC',
  endpointGroup: 'Portcullis-NAC-Endpoint-Group',
  deviceType: 'Portcullis-NAC-Device-Type',
  /** The authenticated user: PEAP's inner identity, EAP-TLS's certificate Common-Name. */
  user: CONTROL_ATTRIBUTES.nacUser,
  userGroup: 'Portcullis-NAC-User-Group',
  /**
   * Why the user may not use the network (`disabled`, `network_login_off`), from portcullis/nac-users:
   * an EAP-TLS certificate naming such a user is refused before the policy (nac-site.ts).
   */
  account: 'Portcullis-NAC-Account',
  /** The client's device groups, ancestors included. */
  deviceGroup: 'Portcullis-NAC-Device-Group',
  /** Captive portal redirection (nac-portal.ts): what is signed, the key (removed once used), the signature. */
  portalSigned: 'Portcullis-Portal-Signed',
  portalKey: 'Portcullis-Portal-Key',
  portalSig: 'Portcullis-Portal-Sig',
} as const

/** Group ids as the tree compares them (uuids; "~", the policy's sentinel, is not one). */
export const NAC_ID = /^[A-Za-z0-9._:@/-]{1,128}$/
/**
 * Device types (profiling names them: "IP phone", "Printer (HP)"): any printable text but what would
 * be expanded or escaped (`%`, `$`, quotes, backslashes, braces), and not "~", the policy's sentinel.
 */
export const NAC_DEVICE_TYPE = /^(?!~$)[^\u0000-\u001f\u007f%$"\\{}]{1,128}$/

export const DICTIONARY_FILE = `${HEADER}
# Internal attributes of the NAC part of the tree (renderers/nac-*.ts): never sent in a packet.
ATTRIBUTE	${NAC_ATTRIBUTES.method}	3170	string
ATTRIBUTE	${NAC_ATTRIBUTES.mac}	3171	string
ATTRIBUTE	${NAC_ATTRIBUTES.endpointGroup}	3172	string
ATTRIBUTE	${NAC_ATTRIBUTES.deviceType}	3173	string
ATTRIBUTE	${NAC_ATTRIBUTES.user}	3174	string
ATTRIBUTE	${NAC_ATTRIBUTES.userGroup}	3175	string
ATTRIBUTE	${NAC_ATTRIBUTES.deviceGroup}	3176	string
ATTRIBUTE	${NAC_ATTRIBUTES.account}	3177	string
ATTRIBUTE	${NAC_ATTRIBUTES.portalSigned}	3178	string
ATTRIBUTE	${NAC_ATTRIBUTES.portalKey}	3179	string
ATTRIBUTE	${NAC_ATTRIBUTES.portalSig}	3180	string
`
