/**
 * The offline signing tool: `portcullis update-feed keygen` makes a release key pair,
 * `portcullis update-feed sign` signs a manifest into the envelope the feed serves. Neither touches
 * the database; run them on the machine that keeps the private key, not on a server.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { CliUsageError, cliRequired, defineCliCommand } from '../../sdk/index.js'
import { defaultKeyId, generateReleaseKey, isKeyId, KEY_ID_PATTERN, privateKeyFromPem, signManifest } from './keys.js'
import { isManifest } from './manifest.js'

export const keygenCommand = defineCliCommand({
  name: 'update-feed-keygen',
  summary: 'make an Ed25519 key pair for signing update manifests (private key to a file, public key printed)',
  usage: '--out FILE [--key-id ID]',
  async run(args, io) {
    const { values } = parseArgs({ args, options: { out: { type: 'string' }, 'key-id': { type: 'string' } }, strict: true })
    const out = cliRequired(values.out, 'out')
    if (existsSync(out)) throw new CliUsageError(`${out} exists: a private key is never overwritten`)
    const k = generateReleaseKey()
    const keyId = values['key-id'] ?? defaultKeyId(k.publicB64)
    if (!isKeyId(keyId)) throw new CliUsageError(`--key-id must match ${KEY_ID_PATTERN}`)
    writeFileSync(out, k.privatePem, { mode: 0o600, flag: 'wx' })
    io.out(`key id: ${keyId}`)
    io.out(`public key: ${k.publicB64}`)
    io.out(`trusted-keys.ts entry: '${keyId}': '${k.publicB64}',`)
    io.err(`the private key is in ${out}: keep it offline; only the public key goes into plugins/update-feed/trusted-keys.ts\n`)
    return 0
  },
})

export const signCommand = defineCliCommand({
  name: 'update-feed-sign',
  summary: 'sign an update manifest (JSON) into the envelope the feed serves',
  usage: '--key PRIVATE.pem --key-id ID [--out FILE] MANIFEST.json',
  async run(args, io) {
    const { values, positionals } = parseArgs({ args, options: { key: { type: 'string' }, 'key-id': { type: 'string' }, out: { type: 'string' } }, allowPositionals: true, strict: true })
    const keyFile = cliRequired(values.key, 'key')
    const keyId = cliRequired(values['key-id'], 'key-id')
    if (!isKeyId(keyId)) throw new CliUsageError(`--key-id must match ${KEY_ID_PATTERN}`)
    if (positionals.length !== 1) throw new CliUsageError('name one manifest file')
    const bytes = readFileSync(positionals[0])
    let manifest: unknown
    try {
      manifest = JSON.parse(bytes.toString('utf8'))
    } catch (e) {
      io.err(`update-feed-sign: ${positionals[0]} is not JSON: ${(e as Error).message}\n`)
      return 1
    }
    // An installation refuses a manifest it cannot read: better to learn it here than from every installation.
    if (!isManifest(manifest)) {
      io.err(`update-feed-sign: ${positionals[0]} is not a valid manifest (schema 1; see docs/update-feed.md)\n`)
      return 1
    }
    // A manifest dated ahead would make every later one look like a replay until that date passes.
    if (Date.parse(manifest.issued_at) > Date.now() + 3_600_000) {
      io.err(`update-feed-sign: issued_at ${manifest.issued_at} is in the future: installations would refuse every later manifest until then\n`)
      return 1
    }
    const envelope = JSON.stringify(signManifest(bytes, privateKeyFromPem(readFileSync(keyFile, 'utf8')), keyId))
    if (values.out) writeFileSync(values.out, envelope + '\n')
    else io.out(envelope)
    return 0
  },
})
