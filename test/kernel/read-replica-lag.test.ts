/** The read replica's lag measure (kernel/db/read-replica.ts): the two upper bounds and how they combine. */
import { expect } from 'chai'
import { lagFrom, parseLsn } from '../../kernel/db/read-replica.js'
import { runsOn } from '../kit/app.js'

// Engine-independent: once per `npm test`, in the PostgreSQL run.
;(runsOn('postgres') ? describe : describe.skip)('read replica: how far behind', () => {
  const now = 1_000_000
  const at = (ago: number, lsn: string) => ({ at: now - ago, lsn: parseLsn(lsn)! })
  it('reads WAL positions as numbers that order like them', () => {
    expect(parseLsn('16/B374D848')! > parseLsn('16/B374D847')!).to.equal(true)
    expect(parseLsn('17/0')! > parseLsn('16/FFFFFFFF')!).to.equal(true)
    expect(parseLsn(null)).to.equal(null)
  })
  it('is 0 when the standby replayed what the primary had just written, however old its last commit (an idle primary)', () => {
    expect(lagFrom([at(2000, '0/100'), at(0, '0/100')], at(0, '0/100'), parseLsn('0/100'), 3_600_000, now)).to.equal(0)
  })
  it('is the time since the primary was last where the standby is, when replay stopped on an idle primary that then wrote', () => {
    const samples = [at(3000, '0/100'), at(1200, '0/100'), at(0, '0/900')]
    expect(lagFrom(samples, samples[2], parseLsn('0/100'), 3_600_000, now)).to.equal(1200)
  })
  it('is the last replayed commit\'s age when that is smaller (a steady write load)', () => {
    const samples = [at(1000, '0/100'), at(0, '0/900')]
    expect(lagFrom(samples, samples[1], parseLsn('0/880'), 12.2, now)).to.equal(13)
  })
  it('is unknown (infinite: too far behind) when neither bound is known', () => {
    expect(lagFrom([at(0, '0/900')], at(0, '0/900'), parseLsn('0/100'), null, now)).to.equal(Infinity)
  })
})

