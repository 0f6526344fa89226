/**
 * The NAC part of the FreeRADIUS renderer, pure (renderers/nac-*.ts): the policy as unlang from the
 * compiled policy (same policy, same bytes; first rule first, the default last), what cannot be
 * written refused with a clear error, hostile but accepted values through `freeradius -C` without a
 * statement more, the tree without a NAC source unchanged in behaviour (its NAC files comments only),
 * and MAB only when the EAP server options are unset.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import type { CompiledNacPolicy } from '../../../sdk/nac-policy.js'
import { buildFreeradiusConfig, FreeradiusRenderError } from '../renderers/config.js'
import { NAC_LINE_MAX, nacConditionUnlang, nacPolicyUnlang } from '../renderers/nac-policy.js'
import { checkConfig, FREERADIUS_PRESENT, FREERADIUS_SKIP, writeRelease } from './e2e-support.js'
import { Scratch } from '../../pki/test/helpers.js'
import { DENY, nacInput, samplePolicy, vlan } from './nac-fixture.js'
import { skipBecause } from '../../../test/kit/skip.js'

const file = (files: ReturnType<typeof buildFreeradiusConfig>, p: string) => files.find((f) => f.path === p)?.content
const HOSTILE = 'say "hi" {x} } # not a comment \\ end'

function withPolicy(mut: (p: CompiledNacPolicy & { rules: any[] }) => void): () => string {
  return () => {
    const p = structuredClone(samplePolicy()) as CompiledNacPolicy & { rules: any[] }
    mut(p)
    return nacPolicyUnlang(p)
  }
}

describe('radius: the NAC part of the FreeRADIUS tree (pure)', () => {
  it('writes the policy in order, the default last, the same bytes for the same policy', () => {
    const text = nacPolicyUnlang(samplePolicy())
    expect(nacPolicyUnlang(samplePolicy())).to.equal(text)
    const order = ['# rule 1 printers', '# rule 2 staff-peap', '# rule 3 certs', '# rule 4 blocked-type', '# default default'].map((s) => text.indexOf(s))
    expect(order.every((v, i) => v >= 0 && (i === 0 || v > order[i - 1]))).to.equal(true)
    expect(text).to.match(/^if \(/m).and.to.match(/^else \{/m)
    expect(text).to.include('&Tunnel-Private-Group-Id += "30"').and.include('&Tmp-String-0 := "printers"').and.include('&Tmp-String-1 := "printers-vlan"')
    // A deny rejects with the reason the log row carries.
    expect(text.slice(text.indexOf('# rule 4'))).to.include('"nac_denied"').and.include('reject')
  })

  it('a policy of the default alone writes it unconditionally', () => {
    const text = nacPolicyUnlang({ rules: [], default: { id: 'd', name: 'default', authorization: DENY } })
    expect(text).to.not.match(/^(if|else)/m)
    expect(text).to.include('reject')
  })

  it('tests what it cannot read as never holding, and says so', () => {
    expect(nacConditionUnlang({ type: 'nas_port_type', values: ['Quantum-Link'] })).to.have.property('note').that.includes('never holds')
    expect(nacConditionUnlang({ type: 'nas_port_type', values: ['Ethernet', 'Quantum-Link'] }).test).to.include('&NAS-Port-Type == Ethernet').and.not.include('Quantum')
  })

  it('refuses what would break out of a string or a regex, naming it', () => {
    expect(withPolicy((p) => (p.rules[0].authorization.reply[2].value = '30"\n}'))).to.throw(FreeradiusRenderError, /printers-vlan.*Tunnel-Private-Group-Id/)
    expect(withPolicy((p) => (p.rules[0].authorization.reply[2].value = '%{User-Password}'))).to.throw(FreeradiusRenderError, /Tunnel-Private-Group-Id/)
    expect(withPolicy((p) => (p.rules[0].authorization.reply[0].attribute = 'Not-An-Attribute'))).to.throw(FreeradiusRenderError, /Not-An-Attribute/)
    expect(withPolicy((p) => (p.rules[1].conditions[1].groups[0].id = 'x" || true || "'))).to.throw(FreeradiusRenderError, /user group/)
    // What sdk certificateValueProblem refuses (the API refuses the same), the error naming the rule.
    expect(withPolicy((p) => (p.rules[2].conditions[1].values = ['café.example']))).to.throw(FreeradiusRenderError, /NAC rule 3 "certs": issuer CN "café.example"/)
    expect(withPolicy((p) => (p.rules[2].conditions[1].values = ['CA\n}']))).to.throw(FreeradiusRenderError, /NAC rule 3 "certs"/)
    // Every printable ASCII character is written as a regex escape: nothing of the value reaches unlang or PCRE.
    const all = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')
    const t = nacConditionUnlang({ type: 'certificate', field: 'san_email', values: [all] }).test
    expect(t).to.match(/^\(&TLS-Client-Cert-Subject-Alt-Name-Email && &TLS-Client-Cert-Subject-Alt-Name-Email\[\*\] =~ \/\^[A-Za-z0-9\\x]+\\z\/i\)$/)
    expect(withPolicy((p) => (p.rules[3].conditions[0].device_types = ['cam\n}']))).to.throw(FreeradiusRenderError, /device type/)
    const i = nacInput()
    ;(i.nac!.endpoints as any[]).push({ mac: '00:11:22:33:44:5G', endpoint_group_ids: [], device_type: null })
    expect(() => buildFreeradiusConfig(i)).to.throw(FreeradiusRenderError, /canonical/)
  })

  it('a signed portal redirection: the key only in a 0600 file declared secret, the url-redirect expanded at request time; no key refuses the render', () => {
    const KEY = 'k'.repeat(40) + 'Portal_Key-1'
    const i = nacInput()
    const p = structuredClone(samplePolicy()) as CompiledNacPolicy & { rules: any[] }
    p.rules[0].authorization.reply = [{ attribute: 'Cisco-AVPair', value: 'url-redirect=https://nac.example.com/portal/lobby?site=1', portal_session: true }, { attribute: 'Cisco-AVPair', value: 'url-redirect-acl=R' }]
    i.nac = { ...i.nac!, policy: p, portalKey: KEY }
    const files = buildFreeradiusConfig(i)
    const sign = files.find((f) => f.path === 'portcullis/nac-portal-sign')!
    expect(sign).to.include({ mode: 0o600 })
    expect(sign.secrets).to.deep.equal([KEY])
    expect(sign.content).to.include(`"${KEY}"`).and.include('%{hmacsha1:&control:Portcullis-Portal-Signed &control:Portcullis-Portal-Key}').and.include('&Portcullis-Portal-Key !* ANY')
    for (const f of files.filter((x) => x !== sign)) expect(f.content, f.path).to.not.include(KEY)
    const policy = file(files, 'portcullis/nac-policy')!
    expect(policy).to.include('$INCLUDE nac-portal-sign')
    expect(policy).to.include('&Cisco-AVPair += "url-redirect=https://nac.example.com/portal/lobby?site=1&mac=%{control:Portcullis-NAC-MAC}&nas=%{%{NAS-IP-Address}:-%{NAS-IPv6-Address}}&ssid=%{urlquote:%{Called-Station-Id}}&sig=%{control:Portcullis-Portal-Sig}"')
    expect(policy.indexOf('$INCLUDE nac-portal-sign')).to.be.lessThan(policy.indexOf('url-redirect=https'))
    // A key but no portal profile: the file still holds it (0600, declared), ready for the first.
    const plain = nacInput()
    plain.nac = { ...plain.nac!, portalKey: KEY }
    expect(buildFreeradiusConfig(plain).find((f) => f.path === 'portcullis/nac-portal-sign')!.content).to.include(KEY)
    i.nac.portalKey = null
    expect(() => buildFreeradiusConfig(i)).to.throw(FreeradiusRenderError, /nac\.portal_redirect_key is null/)
    i.nac.portalKey = 'short"key'
    expect(() => buildFreeradiusConfig(i)).to.throw(FreeradiusRenderError, /portal_redirect_key/)
  })

  it('without a NAC source the NAC includes are comments only: no eap module, no lookups', () => {
    const i = nacInput()
    i.nac = null
    const files = buildFreeradiusConfig(i)
    for (const p of ['portcullis/nac-authorize', 'portcullis/nac-authenticate', 'portcullis/nac-post-auth', 'portcullis/nac-reject', 'sites-enabled/portcullis-inner']) {
      expect(file(files, p)!.split('\n').every((l) => l === '' || l.startsWith('#')), p).to.equal(true)
    }
    expect(files.map((f) => f.path)).to.not.include.members(['mods-enabled/portcullis_eap', 'mods-enabled/portcullis_nac', 'portcullis/nac-policy'])
  })

  it('without the EAP server options: MAB only, EAP requests rejected with the reason', () => {
    const files = buildFreeradiusConfig(nacInput({ eap: null }))
    expect(file(files, 'mods-enabled/portcullis_eap')).to.equal(undefined)
    expect(file(files, 'portcullis/nac-authorize')).to.include('"eap_not_configured"').and.include('&Auth-Type := Accept')
  })

  describe('through freeradius -C', function () {
    this.timeout(60_000)
    let dir: string
    let s: Scratch
    before(function () {
      if (!FREERADIUS_PRESENT) skipBecause(this, FREERADIUS_SKIP)
      dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-nac-render-'))
      s = new Scratch()
      s.ok(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-out', 'server.pem', '-subj', '/CN=radius.test', '-days', '2'])
    })
    after(() => {
      if (dir) rmSync(dir, { recursive: true, force: true })
      s?.remove()
    })

    const check = (eap: boolean, policy?: CompiledNacPolicy) => {
      const release = mkdtempSync(path.join(dir, 'r-'))
      const files = buildFreeradiusConfig(nacInput({ policy, eap: eap ? { certificateFile: path.join(s.dir, 'server.pem'), privateKeyFile: path.join(s.dir, 'server.key') } : null }))
      writeRelease(release, files)
      return checkConfig(release)
    }

    it('accepts the tree with 802.1X and MAB, and with MAB only', () => {
      const a = check(true)
      expect(a.ok, a.output).to.equal(true)
      const b = check(false)
      expect(b.ok, b.output).to.equal(true)
    })

    it('writes a rule longer than a FreeRADIUS line (8 KiB) nested, in chunks, and the tree still loads', () => {
      const p = samplePolicy()
      const groups = Array.from({ length: 300 }, (_, i) => ({ id: `eeeeeeee-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `g${i}` }))
      const policy: CompiledNacPolicy = { ...p, rules: [...p.rules, { id: 'big', name: 'big', position: 5, conditions: [{ type: 'endpoint_group', groups }, { type: 'method', methods: ['mab'] }], authorization: vlan('5', 'five') }, { ...p.rules[0], id: 'after', name: 'after', position: 6 }] }
      const text = nacPolicyUnlang(policy)
      expect(Math.max(...text.split('\n').map((l) => l.length))).to.be.at.most(NAC_LINE_MAX + 200)
      // Each part of the chain runs only while no rule decided; the default last, the same way.
      expect(text.match(/^if \(!&control:Tmp-String-0\) \{$/gm)).to.have.length(4)
      const r = check(true, policy)
      expect(r.ok, r.output).to.equal(true)
    })

    it('accepts hostile but allowed values as values, not statements', () => {
      const p = samplePolicy("O'Brien (Issuing) CA [x] {y} /z")
      const policy: CompiledNacPolicy = {
        ...p,
        rules: [
          ...p.rules,
          { id: 'h', name: 'say "hi" } #', position: 5, conditions: [{ type: 'nas_port_type', values: ['Wireless-802.11'] }], authorization: { ...vlan('7', HOSTILE), reply: [{ attribute: 'Filter-Id', value: HOSTILE }, { attribute: 'Reply-Message', value: "\\\" ' ` $HOME $ {x} }}}" }] } },
          // Every condition type at once, through the parser.
          {
            id: 'all',
            name: 'all-conditions',
            position: 6,
            conditions: [
              { type: 'method', methods: ['peap', 'eap-tls', 'mab'] },
              { type: 'user_group', groups: [{ id: 'ug-1', name: 'a' }, { id: 'ug-2', name: 'b' }] },
              { type: 'endpoint_group', groups: [{ id: 'eg-1', name: 'e' }] },
              { type: 'device_type', device_types: ['printer', 'IP phone'] },
              { type: 'device_group', groups: [{ id: 'dg-1', name: 'd' }] },
              { type: 'certificate', field: 'san_email', values: ['alice+x@example.net'] },
              { type: 'certificate', field: 'san_dns', values: ['host-1.example.net'] },
              { type: 'nas_port_type', values: ['Ethernet', 'Virtual'] },
              { type: 'time_window', window: { label: 'Mon-Fri 08:00-18:30', spans: [{ days: [1, 2, 3, 4, 5], from: 8 * 60, to: 18 * 60 + 30 }] } },
            ],
            authorization: { profile_id: 'x', profile_name: 'aruba', deny: false, reply: [{ attribute: 'Aruba-User-Role', value: 'employee' }, { attribute: 'Session-Timeout', value: '3600' }, { attribute: 'Termination-Action', value: 'RADIUS-Request' }] },
          },
        ],
      }
      const r = check(true, policy)
      expect(r.ok, r.output).to.equal(true)
      const text = nacPolicyUnlang(policy)
      // One update block per rule and the default: no statement came from a value.
      expect(text.match(/^\tupdate reply \{$/gm)).to.have.length(6)
    })
  })
})
