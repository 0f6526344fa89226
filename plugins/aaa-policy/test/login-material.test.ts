/** The policy test's view of a kept password: what FreeRADIUS and tac_plus-ng are each given of it (pure). */
import { expect } from 'chai'
import { loginMaterialOf } from '../services/policy-data.js'

describe('AAA policy: login material of a kept password', () => {
  it('the policy test reads the same predicates (the predicates of the tacacs contract): RADIUS and tac_plus-ng differ where their files do', () => {
    expect(loginMaterialOf({})).to.deep.equal({ chap: false, tacacs_chap: false, tacacs_mschap: false })
    expect(loginMaterialOf({ cleartext: 'plain-pass' })).to.deep.equal({ chap: true, tacacs_chap: true, tacacs_mschap: true })
    expect(loginMaterialOf({ cleartext: 'tab\there' })).to.deep.equal({ chap: false, tacacs_chap: true, tacacs_mschap: true })
    expect(loginMaterialOf({ cleartext: 'x${Y}' })).to.deep.equal({ chap: true, tacacs_chap: false, tacacs_mschap: false })
    expect(loginMaterialOf({ cleartext: 'a😀' })).to.deep.equal({ chap: true, tacacs_chap: true, tacacs_mschap: false })
  })

})
