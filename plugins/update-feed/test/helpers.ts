/** What the update-feed tests share: real Ed25519 keys, manifests, and envelopes signed with the tool's own function. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import nock from 'nock'
import { publicKeyBase64, signManifest } from '../keys.js'
import type { Manifest } from '../manifest.js'

export interface TestKey {
  privateKey: KeyObject
  publicB64: string
}

export function testKey(): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  return { privateKey, publicB64: publicKeyBase64(publicKey) }
}

export function manifest(o: Partial<Manifest> = {}): Manifest {
  return {
    schema: 1,
    edition: 'community',
    latest: '0.2.0',
    released_at: '2026-11-01T10:00:00Z',
    release_notes_url: 'https://portcullis.example.org/releases/0.2.0',
    min_supported: '0.1.0',
    advisories: [
      { id: 'PCS-2026-0001', severity: 'high', title: 'RADIUS proxy <script>alert(1)</script> loop', url: 'https://portcullis.example.org/advisories/PCS-2026-0001', affected: '<0.1.5' },
      { id: 'PCS-2026-0002', severity: 'low', title: 'Old console issue', url: 'https://portcullis.example.org/advisories/PCS-2026-0002', affected: '<0.0.9' },
    ],
    issued_at: '2026-11-20T12:00:00Z',
    ...o,
  }
}

/** The envelope's JSON text, as the feed serves it. */
export const envelope = (m: unknown, key: TestKey, keyId: string) => JSON.stringify(signManifest(Buffer.from(JSON.stringify(m)), key.privateKey, keyId))

/**
 * nock intercepts every HTTP request of the process from the moment it is imported, and mocha
 * imports every test file before running any: so it is switched off here at once, and on only
 * around these suites (their feed host faked, loopback passed through to the test app and PostgreSQL).
 */
if (nock.isActive()) nock.restore()

export function interceptFeed(): void {
  if (!nock.isActive()) nock.activate()
  nock.disableNetConnect()
  nock.enableNetConnect((host) => host.startsWith('127.0.0.1') || host.startsWith('localhost'))
}

export function releaseFeed(): void {
  nock.cleanAll()
  nock.enableNetConnect()
  nock.restore()
}
