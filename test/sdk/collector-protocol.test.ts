/**
 * sdk/collector-protocol.ts: the credential envelope, and the pin that ties the wire file to its
 * contract token. No app: pure functions, milliseconds.
 */
import { createHash, generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { COLLECTOR_CONTRACT, credentialAad, openCredential, publicKeyFromRaw, rawPublicKey, sealCredential, type CollectorJob, type CredentialEnvelope } from '../../sdk/collector-protocol.js'

const job: Pick<CollectorJob, 'job_id' | 'device_id' | 'host' | 'port' | 'lease_expires_at'> = {
  job_id: '4c1b6f0e-0000-4000-8000-000000000001',
  device_id: '4c1b6f0e-0000-4000-8000-0000000000d1',
  host: '192.0.2.10',
  port: 22,
  lease_expires_at: '2026-11-28T21:00:00.000Z',
}
const cred = { username: 'backup', password: 'pässword "1"', enable_secret: 'en4ble' }
const mine = generateKeyPairSync('x25519')
const theirs = generateKeyPairSync('x25519')

describe('sdk/collector-protocol: the credential envelope', () => {
  const aad = credentialAad('collector-1', job)
  const sealed = sealCredential(cred, mine.publicKey, aad)

  it('opens with the collector key and the same job fields, and holds nothing in clear', () => {
    expect(openCredential(sealed, mine.privateKey, credentialAad('collector-1', { ...job }))).to.deep.equal(cred)
    expect(JSON.stringify(sealed)).not.to.include('backup').and.not.to.include('en4ble')
    expect(Object.keys(sealed)).to.deep.equal(['v', 'epk', 'iv', 'ct', 'tag'])
    // A fresh ephemeral key and iv each time.
    const again = sealCredential(cred, mine.publicKey, aad)
    expect(again.epk).not.to.equal(sealed.epk)
    expect(again.ct).not.to.equal(sealed.ct)
    const key = { username: 'u', private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nx\n', passphrase: 'p' }
    expect(openCredential(sealCredential(key, mine.publicKey, aad), mine.privateKey, aad)).to.deep.equal(key)
  })

  it("does not open with another collector's key or for another collector", () => {
    expect(() => openCredential(sealed, theirs.privateKey, aad)).to.throw()
    expect(() => openCredential(sealed, mine.privateKey, credentialAad('collector-2', job))).to.throw()
  })

  it('does not open for a changed host, port, job, device or lease', () => {
    for (const changed of [{ host: '192.0.2.11' }, { port: 2222 }, { job_id: `${job.job_id.slice(0, -1)}2` }, { device_id: `${job.device_id.slice(0, -1)}2` }, { lease_expires_at: '2026-11-28T21:00:01.000Z' }]) {
      expect(() => openCredential(sealed, mine.privateKey, credentialAad('collector-1', { ...job, ...changed })), JSON.stringify(changed)).to.throw()
    }
  })

  it('does not open when any byte of the envelope is flipped', () => {
    for (const field of ['epk', 'iv', 'ct', 'tag'] as const) {
      const bytes = Buffer.from(sealed[field], 'base64url')
      for (const at of [0, bytes.length - 1]) {
        const b = Buffer.from(bytes)
        b[at] ^= 0x01
        const e: CredentialEnvelope = { ...sealed, [field]: b.toString('base64url') }
        expect(() => openCredential(e, mine.privateKey, aad), `${field}[${at}]`).to.throw()
      }
    }
    expect(() => openCredential({ ...sealed, v: 2 } as unknown as CredentialEnvelope, mine.privateKey, aad)).to.throw()
  })

  it('moves raw public keys both ways and refuses anything but 32 bytes', () => {
    const ed = generateKeyPairSync('ed25519')
    const raw = rawPublicKey(ed.privateKey)
    expect(raw).to.match(/^[A-Za-z0-9_-]{43}$/)
    expect(rawPublicKey(publicKeyFromRaw('ed25519', raw))).to.equal(raw)
    expect(rawPublicKey(publicKeyFromRaw('x25519', rawPublicKey(mine.publicKey)))).to.equal(rawPublicKey(mine.privateKey))
    for (const bad of ['', 'AAAA', `${raw}A`, `${raw.slice(0, 42)}=`, raw.replace(/.$/, '+')]) expect(() => publicKeyFromRaw('ed25519', bad), bad).to.throw()
  })
})

// The sha256 of sdk/collector-protocol.ts when COLLECTOR_CONTRACT was last decided.
const PINNED = { contract: 'ncm-collector-14cb7b7c', sha256: '84424f04810a4e7cc2c836e1c1cd3514113dd6447807b8f95360dfb5b272a167' }

describe('sdk/collector-protocol: the contract token', () => {
  it('is pinned to the wire file', () => {
    const file = fileURLToPath(new URL('../../sdk/collector-protocol.ts', import.meta.url))
    const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex')
    expect({ contract: COLLECTOR_CONTRACT, sha256 }).to.deep.equal(
      PINNED,
      'sdk/collector-protocol.ts changed, so the collector wire may have changed. Decide: if a collector of the previous release ' +
        'can no longer talk to this core, give COLLECTOR_CONTRACT a new value (ncm-collector- and 8 new random hex); either way ' +
        'write the contract and the new sha256 into PINNED here.',
    )
  })
})
