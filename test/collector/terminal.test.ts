/**
 * The collector's terminal: what a device sends turned back into the lines on screen, whatever the
 * chunking (an escape sequence or a UTF-8 character split between two reads).
 */
import { expect } from 'chai'
import { commandOutput, Terminal } from '../../collector/ssh/terminal.js'
import { runsOn } from '../kit/app.js'

const screen = (chunks: (string | Buffer)[]) => {
  const t = new Terminal()
  for (const c of chunks) t.write(c)
  return { lines: t.lines, current: t.current }
}

/** Every split of `text` into two chunks gives the same screen as one chunk. */
const sameWhateverTheSplit = (text: string) => {
  const whole = screen([Buffer.from(text)])
  const bytes = Buffer.from(text)
  for (let i = 1; i < bytes.length; i++) expect(screen([bytes.subarray(0, i), bytes.subarray(i)]), `split at ${i}`).to.deep.equal(whole)
  return whole
}

// Pure functions: the same on either engine, so in the embedded run only (the PostgreSQL run is the critical path).
;(runsOn('embedded') ? describe : describe.skip)('collector: the terminal', () => {
  it('removes colours, cursor moves, window titles and charset switches, whatever the chunking', () => {
    const s = sameWhateverTheSplit('\x1b[1;32mhostname\x1b[0m sw1\r\n\x1b]0;sw1: title\x07\x1b(Binterface Gi1/0/1 — «uplink»\r\n\x1b[?25hsw1# ')
    expect(s.lines).to.deep.equal(['hostname sw1', 'interface Gi1/0/1 — «uplink»'])
    expect(s.current).to.equal('sw1# ')
  })

  it('applies carriage returns, backspaces and erase-line as a screen would', () => {
    const s = sameWhateverTheSplit(' --More-- \b\b\b\b\b\b\b\b\b\b          \b\b\b\b\b\b\b\b\b\b!\r\nabc\rX\r\nlong line\x1b[5D\x1b[K\r\n\x1b[2Kgone\x1b[2K\rkept\r\n')
    expect(s.lines).to.deep.equal(['!', 'Xbc', 'long', 'kept'])
  })

  it('takes the echo and the final prompt out of a command\'s screen', () => {
    expect(commandOutput(['sw1#show running-config', '', '!', 'hostname sw1', 'end', ''], 'show running-config')).to.equal('!\nhostname sw1\nend\n')
    // Output that happens to end like the command is kept when it is not the first line.
    expect(commandOutput(['sw1#show run', 'description show run'], 'show run')).to.equal('description show run\n')
    expect(commandOutput([], 'show run')).to.equal('')
  })
})
