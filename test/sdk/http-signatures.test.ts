/**
 * sdk/http-signatures.ts: the RFC 9421 subset and RFC 9530 digests. No app: pure functions, milliseconds.
 * The RFC vectors are checked byte for byte; then every way a gate must refuse a message.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto'
import { expect } from 'chai'
import { contentDigest, parseSignature, parseSignatureInput, serializeSignatureInput, signatureBase, signMessage, verifyContentDigest, verifyMessage, type HttpMessage } from '../../sdk/http-signatures.js'

// RFC 9421 Appendix B.1.4 (test-key-ed25519) and B.2 (test-request).
const RFC_PRIVATE = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n'
const RFC_PUBLIC = '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n'
const RFC_BODY = Buffer.from('{"hello": "world"}')
const rfcRequest = (): HttpMessage => ({
  method: 'POST',
  path: '/foo',
  query: '?param=Value&Pet=dog',
  headers: {
    host: 'example.com',
    date: 'Tue, 20 Apr 2021 02:07:55 GMT',
    'content-type': 'application/json',
    'content-digest': 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    'content-length': '18',
  },
  body: RFC_BODY,
})
const B26_INPUT = 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"'
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n')
const B26_SIGNATURE = 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:'

describe('sdk/http-signatures: the RFC vectors', () => {
  it('reproduces RFC 9421 B.2.6 (Ed25519): the signature base and the signature, byte for byte', () => {
    const input = parseSignatureInput(B26_INPUT, 'sig-b26')
    expect(input).to.deep.equal({
      components: ['date', '@method', '@path', '@authority', 'content-type', 'content-length'],
      params: [
        ['created', 1618884473],
        ['keyid', 'test-key-ed25519'],
      ],
    })
    const base = signatureBase(rfcRequest(), input!)
    expect(base).to.equal(B26_BASE)
    const sig = sign(null, Buffer.from(base), createPrivateKey(RFC_PRIVATE))
    expect(`sig-b26=:${sig.toString('base64')}:`).to.equal(B26_SIGNATURE)
    expect(parseSignature(B26_SIGNATURE, 'sig-b26')!.equals(sig)).to.equal(true)
    expect(verify(null, Buffer.from(base), createPublicKey(RFC_PUBLIC), sig)).to.equal(true)
  })

  it('computes the RFC 9530 example digest of {"hello": "world"}', () => {
    expect(contentDigest(RFC_BODY)).to.equal('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:')
    expect(verifyContentDigest('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:', RFC_BODY)).to.equal(true)
    expect(verifyContentDigest('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:', Buffer.from('{"hello": "world!"}'))).to.equal(false)
    expect(verifyContentDigest(undefined, RFC_BODY)).to.equal(false)
    expect(contentDigest(new Uint8Array())).to.equal('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:')
  })

  it('reads @query as "?" when there is none and @status of an answer', () => {
    const msg: HttpMessage = { method: 'GET', path: '/x', query: '', headers: {}, body: new Uint8Array(), status: 200 }
    expect(signatureBase(msg, { components: ['@query', '@status'], params: [] })).to.equal('"@query": ?\n"@status": 200\n"@signature-params": ("@query" "@status")')
  })
})

// ---- the profile the collector uses ----

const TAG = 'portcullis-ncm'
const REQUIRED = ['@method', '@path', '@query', 'content-digest', 'portcullis-contract']
const NOW = 1_800_000_000_000
const keys = generateKeyPairSync('ed25519')
const other = generateKeyPairSync('ed25519')

function signed(over: { key?: KeyObject; created?: number; components?: string[]; tag?: string; label?: string } = {}): HttpMessage {
  const body = Buffer.from('{"job_id":"j1"}')
  const msg: HttpMessage = {
    method: 'POST',
    path: '/api/v1/ncm/collector/results',
    query: '?slots=2',
    headers: { 'content-digest': contentDigest(body), 'portcullis-contract': 'ncm-collector-00000000', host: 'core.example' },
    body,
  }
  const h = signMessage(msg, over.key ?? keys.privateKey, { keyid: 'c1', tag: over.tag ?? TAG, label: over.label, components: over.components ?? REQUIRED, created: over.created ?? NOW / 1000 })
  msg.headers = { ...msg.headers, ...h }
  return msg
}

const check = (msg: HttpMessage, o: { window?: number; now?: number; label?: string } = {}) =>
  verifyMessage(msg, {
    resolveKey: async (id) => (id === 'c1' ? createPublicKey(keys.privateKey) : id === 'enroll' ? other.publicKey : null),
    required: REQUIRED,
    tag: TAG,
    label: o.label,
    windowSeconds: o.window ?? 60,
    now: o.now ?? NOW,
  })

const reason = async (msg: HttpMessage, o?: { now?: number }) => {
  const r = await check(msg, o)
  return r.ok ? 'ok' : r.reason
}

describe('sdk/http-signatures: signing and verifying', () => {
  it('verifies what it signs, and answers the keyid, nonce and created', async () => {
    const msg = signed()
    expect(msg.headers['signature-input']).to.match(/^ncm=\("@method" "@path" "@query" "content-digest" "portcullis-contract"\);created=1800000000;nonce="[A-Za-z0-9_-]{22}";keyid="c1";alg="ed25519";tag="portcullis-ncm"$/)
    const r = await check(msg)
    expect(r).to.include({ ok: true, keyid: 'c1', created: 1800000000 })
    expect((r as { nonce: string }).nonce).to.match(/^[A-Za-z0-9_-]{22}$/)
    expect(await reason(signed({ created: NOW / 1000 - 60 }))).to.equal('ok')
  })

  it('refuses a malformed Signature-Input or Signature', async () => {
    const good = signed()
    const input = good.headers['signature-input'] as string
    const sig = good.headers.signature as string
    const variants: Array<Record<string, string | string[] | undefined>> = [
      { 'signature-input': undefined },
      { signature: undefined },
      { 'signature-input': `${input} ` }, // does not re-serialize byte for byte
      { 'signature-input': input.replace('("@method" "@path"', '("@method"  "@path"') },
      { 'signature-input': input.replace('created=1800000000', 'created=01800000000') },
      { 'signature-input': input.replace('ncm=', 'sig1=') }, // another label
      { 'signature-input': `${input}, sig2=("@method");created=1` }, // two labels
      { 'signature-input': [input, input] },
      { 'signature-input': input.replace('"@method"', '"@method";sf') },
      { 'signature-input': input.replace(';tag="portcullis-ncm"', ';tag="other"') },
      { 'signature-input': input.replace(';alg="ed25519"', ';alg="rsa-pss-sha512"') },
      { 'signature-input': input.replace(';alg="ed25519"', '') },
      { 'signature-input': input.replace(/;nonce="[^"]+"/, '') },
      { 'signature-input': `${input};expires=1900000000` }, // a parameter outside the subset
      { 'signature-input': `${input};keyid="c2"` }, // a parameter twice
      { 'signature-input': input.replace('"@query"', '"@query" "@method"') }, // a component twice
      { 'signature-input': input.replace('"@query"', '"@query" "@target-uri"') }, // a component outside the subset
      { 'signature-input': input.replace('"@query"', '"@query" "x-absent"') }, // a header the message lacks
      { signature: sig.replace(/=:$/, ':') },
      { signature: sig.replace('ncm=:', 'ncm=:!') },
      { signature: `${sig}, sig2=:AAAA:` },
    ]
    for (const v of variants) {
      const msg = signed()
      msg.headers = { ...msg.headers, ...v }
      expect(await reason(msg), JSON.stringify(v)).to.equal('malformed')
    }
  })

  it('refuses a signature that does not cover every required component', async () => {
    expect(await reason(signed({ components: ['@method', '@path', '@query', 'portcullis-contract'] }))).to.equal('not_covered')
    expect(await reason(signed({ components: ['@method', '@path', 'content-digest', 'portcullis-contract'] }))).to.equal('not_covered')
  })

  it('refuses a created outside the window, either way', async () => {
    expect(await reason(signed({ created: NOW / 1000 - 61 }))).to.equal('stale')
    expect(await reason(signed({ created: NOW / 1000 + 61 }))).to.equal('stale')
    expect(await reason(signed(), { now: NOW + 61_000 })).to.equal('stale')
  })

  it('refuses an unknown keyid', async () => {
    const msg = signed()
    msg.headers['signature-input'] = (msg.headers['signature-input'] as string).replace('keyid="c1"', 'keyid="c9"')
    expect(await reason(msg)).to.equal('unknown_key')
  })

  it("refuses another key's signature, a changed signature, and a key of another kind", async () => {
    expect(await reason(signed({ key: other.privateKey }))).to.equal('bad_signature')
    const msg = signed()
    const sig = Buffer.from((msg.headers.signature as string).slice(5, -1), 'base64')
    sig[10] ^= 1
    msg.headers.signature = `ncm=:${sig.toString('base64')}:`
    expect(await reason(msg)).to.equal('bad_signature')
    const x = generateKeyPairSync('x25519')
    const r = await verifyMessage(signed(), { resolveKey: async () => x.publicKey, required: REQUIRED, tag: TAG, windowSeconds: 60, now: NOW })
    expect(r).to.deep.equal({ ok: false, reason: 'bad_signature' })
  })

  it('refuses a tampered method, path, query or covered header', async () => {
    const tamper: Array<(m: HttpMessage) => void> = [
      (m) => (m.method = 'PUT'),
      (m) => (m.path = '/api/v1/ncm/collector/enroll'),
      (m) => (m.path = '/api/v1/ncm/collector/results/'),
      (m) => (m.query = '?slots=3'),
      (m) => (m.query = ''),
      (m) => (m.headers['portcullis-contract'] = 'ncm-collector-00000001'),
      (m) => (m.headers['content-digest'] = contentDigest(Buffer.from('other'))),
    ]
    for (const t of tamper) {
      const msg = signed()
      t(msg)
      expect(await reason(msg), t.toString()).to.equal('bad_signature')
    }
    // A header not covered may change (the proxy's Host).
    const msg = signed()
    msg.headers.host = 'proxy.example'
    expect(await reason(msg)).to.equal('ok')
  })

  it('refuses a body that does not match its covered digest', async () => {
    const msg = signed()
    msg.body = Buffer.from('{"job_id":"j2"}')
    expect(await reason(msg)).to.equal('bad_digest')
  })

  it('refuses a header value holding a line break (no injected lines in the base)', async () => {
    const body = Buffer.alloc(0)
    const msg: HttpMessage = { method: 'GET', path: '/x', query: '', headers: { 'content-digest': contentDigest(body), 'portcullis-contract': 'a\n"@method": GET' }, body }
    expect(() => signMessage(msg, keys.privateKey, { keyid: 'c1', tag: TAG, components: REQUIRED })).to.throw()
  })

  it('uses the label it is given, on both sides', async () => {
    const msg = signed({ label: 'sig1' })
    expect(await reason(msg)).to.equal('malformed')
    const r = await check(msg, { label: 'sig1' })
    expect(r.ok).to.equal(true)
  })

  it('re-serializes what it parses (strict RFC 8941)', () => {
    const text = '("@method" "x-a");created=-5;nonce="a\\"b\\\\c"'
    const input = parseSignatureInput(`ncm=${text}`, 'ncm')
    expect(input).to.deep.equal({ components: ['@method', 'x-a'], params: [['created', -5], ['nonce', 'a"b\\c']] })
    expect(serializeSignatureInput(input!)).to.equal(text)
    expect(parseSignatureInput('ncm=("@method");nonce="\u00e9"', 'ncm')).to.equal(null)
    expect(parseSignatureInput('ncm=("@method";created=1', 'ncm')).to.equal(null)
    expect(parseSignatureInput('ncm=("@method");created', 'ncm')).to.equal(null)
  })
})
