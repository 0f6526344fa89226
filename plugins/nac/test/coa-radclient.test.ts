/**
 * The loopback NAS (coa-nas.ts) checks each request by RFC 5176 with its own
 * code; this holds that check to FreeRADIUS's: radclient's CoA-Request with a
 * Message-Authenticator verifies, radclient accepts the NAS's ACK, and refuses
 * one signed with another secret, as the plugin does.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { expect } from 'chai'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'

const run = promisify(execFile)

describe('nac: the loopback NAS of the CoA tests, against radclient', () => {
  const nases: LoopbackNas[] = []
  after(() => nases.forEach((n) => n.close()))

  it("the loopback NAS's check agrees with FreeRADIUS: radclient's signed CoA-Request verifies, and radclient accepts its ACK", async () => {
    const address = `127.0.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`
    const secret = `rc-${randomUUID().slice(0, 8)}`
    const listener = await LoopbackNas.start(address, secret)
    nases.push(listener)
    const input = 'Calling-Station-Id = "AA-BB-CC-00-11-22"\nCisco-AVPair = "subscriber:command=reauthenticate"\nMessage-Authenticator = 0x00\n'
    const child = run('radclient', ['-x', '-r', '1', '-t', '2', `${address}:${listener.port}`, 'coa', secret])
    child.child.stdin!.end(input)
    const { stdout } = await child
    expect(stdout).to.match(/Received CoA-ACK/)
    const [got] = await listener.waitFor(1)
    expect(got).to.include({ code: 43, signed: true, hasMessageAuthenticator: true })
    expect(got.ciscoAvPairs).to.deep.equal(['subscriber:command=reauthenticate'])
    // And an ACK signed with another secret is one radclient refuses too, as the plugin does.
    listener.answer = { kind: 'wrong-secret' }
    const bad = run('radclient', ['-x', '-r', '1', '-t', '1', `${address}:${listener.port}`, 'coa', secret])
    bad.child.stdin!.end(input)
    const out = await bad.then((r) => r.stdout + r.stderr, (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`)
    expect(out).not.to.match(/Received CoA-ACK/)
    expect(out).to.match(/Reply verification failed/)
  })
})
