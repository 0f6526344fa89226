/** A pure FreeradiusConfigInput with the NAC part (802.1X and MAB), for the render tests and the benchmark. */
import type { CompiledNacPolicy, CompiledNacRule, NacAuthorization } from '../../../sdk/nac-policy.js'
import { FREERADIUS_LIBDIRS, type FreeradiusConfigInput } from '../renderers/config.js'
import { md4 } from '../../../sdk/md4.js'

/** A network user of the fixture: PEAP-MSCHAPv2 checks the NT hash; the crypt is never used by 802.1X. */
export const PEAP_USER = { username: 'alice', password: 'Peap-Secret-123' }
const ntHash = (pw: string) => md4(Buffer.from(pw, 'utf16le')).toString('hex').toUpperCase()

export const UG_STAFF = '11111111-1111-4111-8111-111111111111'
export const EG_PRINTERS = '22222222-2222-4222-8222-222222222222'
export const DG_ACCESS = '33333333-3333-4333-8333-333333333333'

export const vlan = (id: string, name: string): NacAuthorization => ({
  profile_id: `p-${name}`,
  profile_name: name,
  deny: false,
  reply: [
    { attribute: 'Tunnel-Type', value: 'VLAN' },
    { attribute: 'Tunnel-Medium-Type', value: 'IEEE-802' },
    { attribute: 'Tunnel-Private-Group-Id', value: id },
  ],
})
export const DENY: NacAuthorization = { profile_id: 'p-deny', profile_name: 'deny', deny: true, reply: [] }

/** Printers by MAB → VLAN 30; staff by PEAP → 10; EAP-TLS from the issuer → 20; default guest VLAN 99. */
export function samplePolicy(issuerCn = 'Portcullis NAC Test CA'): CompiledNacPolicy {
  const rules: CompiledNacRule[] = [
    { id: 'r1', name: 'printers', position: 1, conditions: [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', groups: [{ id: EG_PRINTERS, name: 'printers' }] }], authorization: vlan('30', 'printers-vlan') },
    { id: 'r2', name: 'staff-peap', position: 2, conditions: [{ type: 'method', methods: ['peap'] }, { type: 'user_group', groups: [{ id: UG_STAFF, name: 'staff' }] }], authorization: vlan('10', 'staff-vlan') },
    { id: 'r3', name: 'certs', position: 3, conditions: [{ type: 'method', methods: ['eap-tls'] }, { type: 'certificate', field: 'issuer_cn', values: [issuerCn] }], authorization: { ...vlan('20', 'cert-vlan'), reply: [...vlan('20', 'cert-vlan').reply, { attribute: 'Filter-Id', value: 'corp-acl' }] } },
    { id: 'r4', name: 'blocked-type', position: 4, conditions: [{ type: 'device_type', device_types: ['blocked-camera'] }], authorization: DENY },
  ]
  return { rules, default: { id: 'r0', name: 'default', authorization: vlan('99', 'guest-vlan') } }
}

export function nacInput(w: { eap?: { certificateFile: string; privateKeyFile: string } | null; policy?: CompiledNacPolicy; port?: number; logDirectory?: string; runDirectory?: string } = {}): FreeradiusConfigInput {
  return {
    listen: { address: '127.0.0.1', authPort: w.port ?? 18120, acctPort: (w.port ?? 18120) + 1 },
    logDirectory: w.logDirectory ?? '/var/log/portcullis/radius',
    runDirectory: w.runDirectory ?? '/run/portcullis/freeradius',
    libdir: FREERADIUS_LIBDIRS,
    deviceGroups: [{ id: DG_ACCESS, name: 'access', parent_id: null }],
    devices: [{ device: { id: 'd1', name: 'sw1', address: '127.0.0.1/32', device_group_id: DG_ACCESS, enabled: true }, radiusSecret: 'testing123' }],
    users: [
      { id: 'u1', username: PEAP_USER.username, group_ids: [UG_STAFF], verifiers: { sha512_crypt: '$6$saltsalt$' + 'a'.repeat(86), nt_hash: ntHash(PEAP_USER.password) } },
      { id: 'u2', username: 'bob', group_ids: [], verifiers: { sha512_crypt: '$6$saltsalt$' + 'a'.repeat(86), nt_hash: ntHash('Bob-Secret-456') } },
    ],
    refusedUsers: [],
    profiles: [],
    rules: [],
    nac: {
      policy: w.policy ?? samplePolicy(),
      endpoints: [
        { mac: '00:11:22:33:44:55', endpoint_group_ids: [EG_PRINTERS], device_type: 'printer' },
        { mac: '00:11:22:33:44:66', endpoint_group_ids: [], device_type: 'blocked-camera' },
      ],
      eap: w.eap ?? null,
    },
  }
}
