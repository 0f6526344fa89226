/**
 * The network verifiers against references apart from ours: SHA-512 crypt against the vectors of
 * Drepper's specification and against `openssl passwd -6` at every length from 1 to 256 bytes (the
 * most OpenSSL takes; a network password may be 128), in ASCII with every control byte but LF and
 * in mixed 2-, 3- and 4-byte UTF-8; the NT hash against OpenSSL's MD4 (legacy provider).
 * The npm package used before got every 64·n-byte password wrong.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { ntHash } from '../../sdk/md4.js'
import { parseSetting, randomSalt, sha512Crypt, sha512CryptMatches } from '../../kernel/identity/sha512-crypt.js'
import { deriveVerifiers, repairedVerifiers } from '../../kernel/identity/verifiers.js'
import { skipBecause } from '../kit/skip.js'
import { runsOn } from '../kit/app.js'

/** Ulrich Drepper, "Unix crypt using SHA-256 and SHA-512", the SHA-512 test vectors. */
const SPEC_VECTORS: [setting: string, key: string, expected: string][] = [
  ['$6$saltstring', 'Hello world!', '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'],
  ['$6$rounds=10000$saltstringsaltstring', 'Hello world!', '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.'],
  ['$6$rounds=5000$toolongsaltstring', 'This is just a test', '$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0'],
  [
    '$6$rounds=1400$anotherlongsaltstring',
    'a very much longer text to encrypt.  This one even stretches over morethan one line.',
    '$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1',
  ],
  ['$6$rounds=77777$short', 'we have a short salt string but not a short password', '$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0'],
  ['$6$rounds=123456$asaltof16chars..', 'a short string', '$6$rounds=123456$asaltof16chars..$BtCwjqMJGx5hrJhZywWvt0RLE8uZ4oPwcelCjmw2kSYu.Ec6ycULevoBK25fs2xXgMNrCzIMVcgEJAstJeonj1'],
  ['$6$rounds=10$roundstoolow', 'the minimum number is still observed', '$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.'],
]

/** The most bytes `openssl passwd` hashes (it cuts longer lines). */
const OPENSSL_MAX = 256
const hasOpenssl = spawnSync('openssl', ['version']).status === 0

/** `openssl passwd -6 -salt SETTING -stdin`, one password a line (none may hold LF or NUL). */
function opensslCrypt(salt: string, passwords: readonly string[]): string[] {
  for (const p of passwords) expect(p.includes('\n') || p.includes('\0'), JSON.stringify(p)).to.equal(false)
  const r = spawnSync('openssl', ['passwd', '-6', '-salt', salt, '-stdin'], { input: passwords.map((p) => p + '\n').join(''), encoding: 'utf8' })
  expect(r.status, r.stderr).to.equal(0)
  const lines = r.stdout.split('\n').filter((l) => l !== '')
  expect(lines).to.have.length(passwords.length)
  return lines
}

/** A repeatable random source (a 32-bit LCG), so a failure names the same password on the next run. */
function lcg(seed: number) {
  let s = seed >>> 0
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s % n
  }
}

/** Exactly `bytes` UTF-8 bytes: every code point width mixed (wide ones only where they still fit). */
function utf8OfLength(bytes: number, rnd: (n: number) => number, asciiOnly = false): string {
  let s = ''
  for (let left = bytes; left > 0; ) {
    const width = asciiOnly ? 1 : 1 + rnd(Math.min(4, left))
    let cp: number
    if (width === 1) {
      do cp = 1 + rnd(0x7f)
      while (cp === 0x0a)
    } else if (width === 2) cp = 0x80 + rnd(0x800 - 0x80)
    else if (width === 3) {
      do cp = 0x800 + rnd(0x10000 - 0x800)
      while (cp >= 0xd800 && cp <= 0xdfff)
    } else cp = 0x10000 + rnd(0x110000 - 0x10000)
    s += String.fromCodePoint(cp)
    left -= width
  }
  expect(Buffer.byteLength(s)).to.equal(bytes)
  return s
}

const lengths = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

// Pure functions against openssl and reference values, no database: once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('network verifiers: SHA-512 crypt and the NT hash against reference implementations', function () {
  this.timeout(120_000)

  it('gives every SHA-512 test vector of the specification (rounds= given, too many, too few; long salts cut to 16)', () => {
    for (const [setting, key, expected] of SPEC_VECTORS) {
      expect(sha512Crypt(key, parseSetting(setting)!), setting).to.equal(expected)
      expect(sha512CryptMatches(key, expected)).to.equal(true)
      expect(sha512CryptMatches(key + 'x', expected)).to.equal(false)
    }
  })

  describe('against openssl passwd -6', function () {
    before(function () {
      if (!hasOpenssl) skipBecause(this, 'no openssl on this machine')
    })

    it(`agrees at every length from 1 to ${OPENSSL_MAX} bytes: ASCII with control bytes, and mixed multi-byte UTF-8`, () => {
      const rnd = lcg(64)
      const ascii = lengths(1, OPENSSL_MAX).map((n) => utf8OfLength(n, rnd, true))
      const mixed = lengths(1, OPENSSL_MAX).map((n) => utf8OfLength(n, rnd))
      // rounds=1000 keeps 512 hashes quick; the rounds do not touch the length handling under test.
      const setting = 'rounds=1000$Portcullis.Salt1'
      const want = opensslCrypt(setting, [...ascii, ...mixed])
      const got = [...ascii, ...mixed].map((p) => sha512Crypt(p, parseSetting(`$6$${setting}`)!))
      const wrong = got.flatMap((g, i) => (g === want[i] ? [] : [`${Buffer.byteLength([...ascii, ...mixed][i])} bytes`]))
      expect(wrong, 'lengths that disagree with OpenSSL').to.deep.equal([])
    })

    it('agrees with the default rounds around every multiple of 64 bytes, and with a short salt', () => {
      const rnd = lcg(6)
      const keys = [63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256].flatMap((n) => [utf8OfLength(n, rnd, true), utf8OfLength(n, rnd)])
      for (const salt of ['aZ./09xyzXYZ.abc', 'z']) {
        const want = opensslCrypt(salt, keys)
        keys.forEach((k, i) => expect(sha512Crypt(k, { salt }), `${Buffer.byteLength(k)} bytes`).to.equal(want[i]))
      }
    })

    it('derives verifiers OpenSSL agrees with, with a fresh salt each time, at 64, 128, 192 and 256 bytes and beside them', () => {
      const rnd = lcg(128)
      for (const n of [1, 63, 64, 65, 127, 128, 129, 192, 256]) {
        for (const pw of [utf8OfLength(n, rnd, true), utf8OfLength(n, rnd)]) {
          const v = deriveVerifiers(pw)
          const { salt } = parseSetting(v.sha512_crypt)!
          expect(salt).to.have.length(16)
          expect(v.sha512_crypt, `${n} bytes`).to.equal(opensslCrypt(salt, [pw])[0])
        }
      }
    })
  })

  it('draws salts from all 64 characters of the crypt alphabet', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 400; i++) for (const c of randomSalt()) seen.add(c)
    expect(seen.size).to.equal(64)
  })

  it('re-derives only a wrong SHA-512 crypt of a 64·n-byte password, keeping the NT hash and the cleartext', () => {
    const pw = 'P'.repeat(64)
    const good = deriveVerifiers(pw, true)
    expect(repairedVerifiers(good, pw)).to.equal(null)
    // What unixcrypt 3.0.4 stored for this password with this salt (computed with it once, kept here).
    const broken = { ...good, sha512_crypt: '$6$Portcullis.Salt$zECNvonAYhQuA2LnGwQfz/jm5t7epvkLOKcF4ELkLmvsDqO4EwWuzYQVCLIegWJ/WMGZl8B9dQCL9ZhPjjdss0' }
    expect(sha512CryptMatches(pw, broken.sha512_crypt)).to.equal(false)
    const fixed = repairedVerifiers(broken, pw)!
    expect(fixed).to.deep.equal({ ...good, sha512_crypt: sha512Crypt(pw, { salt: 'Portcullis.Salt' }) })
    // A 65-byte password was never affected: nothing is recomputed.
    expect(repairedVerifiers({ ...good, sha512_crypt: 'not looked at' }, pw + 'x')).to.equal(null)
  })

  it('NT hash: MD4 of the UTF-16LE password agrees with OpenSSL at every UTF-8 length from 1 to 256 bytes', function () {
    const probe = spawnSync('openssl', ['dgst', '-md4', '-provider', 'legacy', '-provider', 'default'], { input: 'x' })
    if (probe.status !== 0) skipBecause(this, 'this openssl has no MD4 (legacy provider)')
    const rnd = lcg(4)
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-md4-'))
    try {
      const pws = lengths(1, 256).map((n) => utf8OfLength(n, rnd))
      const files = pws.map((p, i) => {
        const f = path.join(dir, String(i))
        writeFileSync(f, Buffer.from(p, 'utf16le'))
        return f
      })
      const r = spawnSync('openssl', ['dgst', '-md4', '-r', '-provider', 'legacy', '-provider', 'default', ...files], { encoding: 'utf8' })
      expect(r.status, r.stderr).to.equal(0)
      const want = r.stdout.trim().split('\n').map((l) => l.split(' ')[0].toUpperCase())
      pws.forEach((p, i) => expect(ntHash(p).toString('hex').toUpperCase(), `${p.length} UTF-16 units`).to.equal(want[i]))
      // What the users get: the same, upper-case hex.
      for (const i of [0, 63, 127, 255]) expect(deriveVerifiers(pws[i]).nt_hash).to.equal(want[i])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
