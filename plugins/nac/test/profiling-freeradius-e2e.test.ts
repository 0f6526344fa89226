/**
 * Device-sensor AVPairs through the real FreeRADIUS 3.2: radclient sends accounting as a Cisco switch
 * with device-sensor does (Cisco-AVPair `dhcp-option=` / `cdp-tlv=` TLVs with binary type and length,
 * NAS-Port-Id, NAS-Port-Type), the rendered tree's linelog writes the line, the ingester reads it and
 * the nac plugin types the endpoint and opens its session. Skipped where FreeRADIUS is not installed.
 */
import { expect } from 'chai'
import { RadiusLab, SECRET } from '../../radius/test/e2e-lab.js'
import { FREERADIUS_PRESENT, FREERADIUS_SKIP, radclient } from '../../radius/test/e2e-support.js'

describe('nac: profiling from the real FreeRADIUS accounting', function () {
  this.timeout(120_000)
  let lab: RadiusLab

  before(async function () {
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    lab = await RadiusLab.open({ plugins: ['aaa-logs', 'nac'], settings: { 'aaa-logs.poll_ms': 20 } })
  })
  after(async () => lab?.close())

  it('types the endpoint from DHCP and CDP TLVs and records the session with its port', async () => {
    const r = await radclient(lab.acctPort, 'acct', SECRET, [
      'User-Name = "00000c5a0001"',
      'Acct-Status-Type = Start',
      'Acct-Session-Id = "ds-1"',
      'Calling-Station-Id = "00-00-0C-5A-00-01"',
      'NAS-Port-Id = "GigabitEthernet1/0/12"',
      'NAS-Port-Type = Ethernet',
      // type 60 (0x003c '<'), length 8; type 6, length 19: as the switch sends them.
      'Cisco-AVPair = "dhcp-option=\\000<\\000\\010MSFT 5.0"',
      'Cisco-AVPair = "cdp-tlv=\\000\\006\\000\\023Cisco IP Phone 8845"',
      'Cisco-AVPair = "audit-session-id=0A0B0C0D"',
    ])
    expect(r.code, r.raw).to.equal('Accounting-Response')
    const end = Date.now() + 15_000
    let e: any
    for (;;) {
      e = (await lab.t.admin('GET', '/api/v1/nac/endpoints?mac=00:00:0c:5a:00:01')).body.items[0]
      if (e?.device_type || Date.now() > end) break
      await new Promise((res) => setTimeout(res, 50))
    }
    expect(e, 'endpoint').to.not.equal(undefined)
    expect(e).to.include({ device_type: 'ip-phone', device_type_confidence: 90, last_nas_port: 'GigabitEthernet1/0/12', last_nas_ip: '127.0.0.1' })
    const ev = await lab.t.app.db.knex('nac_endpoint_evidence').where({ endpoint_id: e.id }).first()
    expect(ev!.evidence).to.deep.equal({ dhcp_class_id: 'MSFT 5.0', cdp_platform: 'Cisco IP Phone 8845', nas_port_type: 'Ethernet' })
    const s = (await lab.t.admin('GET', '/api/v1/nac/sessions?mac=00:00:0c:5a:00:01')).body.items[0]
    expect(s).to.include({ acct_session_id: 'ds-1', nas_port: 'GigabitEthernet1/0/12', nas_port_type: 'Ethernet', state: 'live', nas_ip: '127.0.0.1' })
  })
})
