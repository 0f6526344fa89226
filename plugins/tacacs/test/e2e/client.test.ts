/**
 * The RFC 8907 client: the packet codec against the RFC's structure (header
 * fields, pad obfuscation, body layouts and lengths), the session logic
 * against a scripted server, and, with TAC_PLUS_NG, against the real daemon.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { sha512Crypt } from '../../../../sdk/index.js'
import { checkTacPlusNg, freePort, startTacPlusNg, TAC_PLUS_NG_SKIP, tacPlusNgBinary, type RunningTacPlusNg } from '../../../../test/kit/tac-plus-ng.js'
import {
  AcctFlag,
  AcctStatus,
  AuthenAction,
  AuthenService,
  AuthenStatus,
  AuthenType,
  AuthorStatus,
  HeaderFlag,
  PacketType,
  TacacsClient,
  TacacsProtocolError,
  TacacsTimeoutError,
  decodeAcctReply,
  decodeAcctRequest,
  decodeAuthenContinue,
  decodeAuthenReply,
  decodeAuthenStart,
  decodeAuthorRequest,
  decodeAuthorResponse,
  decodeHeader,
  decodePacket,
  encodeAcctReply,
  encodeAcctRequest,
  encodeAuthenContinue,
  encodeAuthenReply,
  encodeAuthenStart,
  encodeAuthorRequest,
  encodeAuthorResponse,
  encodeHeader,
  encodePacket,
  obfuscate,
  pseudoPad,
  type Header,
} from '../../client/index.js'

const KEY = Buffer.from('tac-secret')

describe('tacacs client: packet codec (RFC 8907)', () => {
  it('writes the 12-byte header: version nibbles, type, seq_no, flags, session_id and length big-endian', () => {
    const h: Header = { majorVersion: 0xc, minorVersion: 1, type: PacketType.AUTHEN, seqNo: 3, flags: HeaderFlag.SINGLE_CONNECT, sessionId: 0xdeadbeef, length: 0x01020304 }
    const b = encodeHeader(h)
    expect(b.toString('hex')).to.equal('c1' + '01' + '03' + '04' + 'deadbeef' + '01020304')
    expect(decodeHeader(b)).to.deep.equal(h)
    expect(() => decodeHeader(b.subarray(0, 11))).to.throw(TacacsProtocolError)
  })

  it('builds the pad as chained MD5 of session_id, key, version, seq_no (and the previous hash), cut to the body length', () => {
    const h = { sessionId: 0x01020304, majorVersion: 0xc, minorVersion: 0, seqNo: 1 }
    const head = Buffer.concat([Buffer.from([1, 2, 3, 4]), KEY, Buffer.from([0xc0, 1])])
    const md1 = createHash('md5').update(head).digest()
    const md2 = createHash('md5').update(head).update(md1).digest()
    const md3 = createHash('md5').update(head).update(md2).digest()
    expect(pseudoPad(h, KEY, 40).toString('hex')).to.equal(Buffer.concat([md1, md2, md3]).subarray(0, 40).toString('hex'))
    expect(pseudoPad(h, KEY, 16).equals(md1)).to.equal(true)
    // The pad depends on the sequence number and the version.
    expect(pseudoPad({ ...h, seqNo: 2 }, KEY, 16).equals(md1)).to.equal(false)
    expect(pseudoPad({ ...h, minorVersion: 1 }, KEY, 16).equals(md1)).to.equal(false)
  })

  it('obfuscates by XOR with the pad: the same call restores the body; an empty key sends it clear with the UNENCRYPTED flag', () => {
    const h = { sessionId: 77, majorVersion: 0xc, minorVersion: 0, seqNo: 1 }
    const body = Buffer.from('a body longer than one MD5 block, to chain the pad')
    const hidden = obfuscate(h, KEY, body)
    expect(hidden.equals(body)).to.equal(false)
    expect(obfuscate(h, KEY, hidden).equals(body)).to.equal(true)

    const packet = encodePacket({ ...h, type: PacketType.AUTHOR, flags: 0 }, KEY, body)
    expect(packet.length).to.equal(12 + body.length)
    expect(decodeHeader(packet)).to.include({ length: body.length, flags: 0 })
    expect(decodePacket(packet, KEY).body.equals(body)).to.equal(true)
    const clear = encodePacket({ ...h, type: PacketType.AUTHOR, flags: 0 }, Buffer.alloc(0), body)
    expect(decodeHeader(clear).flags & HeaderFlag.UNENCRYPTED).to.equal(HeaderFlag.UNENCRYPTED)
    expect(clear.subarray(12).equals(body)).to.equal(true)
    expect(() => decodePacket(packet.subarray(0, packet.length - 1), KEY)).to.throw(TacacsProtocolError, /announces/)
  })

  it('lays out authentication START, REPLY and CONTINUE (section 5)', () => {
    const start = encodeAuthenStart({ action: AuthenAction.LOGIN, privLvl: 1, authenType: AuthenType.PAP, authenService: AuthenService.LOGIN, user: 'alice', port: 'tty1', remAddr: '10.0.0.1', data: 'pw' })
    expect(start.length).to.equal(8 + 5 + 4 + 8 + 2)
    expect([...start.subarray(0, 8)]).to.deep.equal([1, 1, 2, 1, 5, 4, 8, 2])
    expect(start.subarray(8).toString()).to.equal('alicetty110.0.0.1pw')
    expect(decodeAuthenStart(start)).to.deep.include({ user: 'alice', port: 'tty1', remAddr: '10.0.0.1' })

    const reply = encodeAuthenReply({ status: AuthenStatus.GETPASS, flags: 1, serverMsg: 'Password: ', data: Buffer.alloc(0) })
    expect(reply.length).to.equal(6 + 10)
    expect(reply.readUInt16BE(2)).to.equal(10)
    expect(decodeAuthenReply(reply)).to.deep.include({ status: AuthenStatus.GETPASS, flags: 1, serverMsg: 'Password: ' })
    expect(() => decodeAuthenReply(Buffer.concat([reply, Buffer.from([0])]))).to.throw(TacacsProtocolError, /after the last field/)
    expect(() => decodeAuthenReply(reply.subarray(0, 10))).to.throw(TacacsProtocolError, /too short/)

    const cont = encodeAuthenContinue({ userMsg: 'secret' })
    expect(cont.length).to.equal(5 + 6)
    expect(decodeAuthenContinue(cont).userMsg.toString()).to.equal('secret')
    // One-byte lengths: a field over 255 bytes does not fit.
    expect(() => encodeAuthenStart({ action: 1, privLvl: 1, authenType: 1, authenService: 1, user: 'x'.repeat(256) })).to.throw(TacacsProtocolError, /255/)
  })

  it('lays out authorization REQUEST and RESPONSE (section 6), and accounting REQUEST and REPLY (section 7)', () => {
    const args = ['service=shell', 'cmd=show', 'cmd-arg=version', 'cmd-arg=<cr>']
    const req = encodeAuthorRequest({ authenMethod: 6, privLvl: 1, authenType: 1, authenService: 1, user: 'bob', port: 'vty0', remAddr: '', args })
    expect(req.length).to.equal(8 + args.length + 3 + 4 + args.join('').length)
    expect(req[7]).to.equal(args.length)
    expect([...req.subarray(8, 12)]).to.deep.equal(args.map((a) => a.length))
    expect(decodeAuthorRequest(req)).to.deep.include({ user: 'bob', port: 'vty0', args })

    const resp = encodeAuthorResponse({ status: AuthorStatus.PASS_ADD, args: ['priv-lvl=15'], serverMsg: '', data: Buffer.alloc(0) })
    expect(resp.length).to.equal(6 + 1 + 11)
    expect(decodeAuthorResponse(resp)).to.deep.include({ status: AuthorStatus.PASS_ADD, args: ['priv-lvl=15'] })

    const acct = encodeAcctRequest({ flags: AcctFlag.START, authenMethod: 6, privLvl: 15, authenType: 1, authenService: 1, user: 'bob', args: ['task_id=1'] })
    expect(acct.length).to.equal(9 + 1 + 3 + 9)
    expect(acct[0]).to.equal(AcctFlag.START)
    expect(decodeAcctRequest(acct)).to.deep.include({ flags: AcctFlag.START, privLvl: 15, args: ['task_id=1'] })
    const ar = encodeAcctReply({ status: AcctStatus.SUCCESS, serverMsg: 'ok', data: Buffer.alloc(0) })
    expect(ar.length).to.equal(5 + 2)
    expect(decodeAcctReply(ar)).to.deep.include({ status: AcctStatus.SUCCESS, serverMsg: 'ok' })
  })
})

/** A scripted server: each received packet (header, clear body) gets the reply body the script returns, or none (close). */
async function scriptedServer(key: Buffer, script: (h: Header, body: Buffer, n: number) => { body: Buffer; seqNo?: number; sessionId?: number; minor?: number } | null | 'silent') {
  const seen: { header: Header; body: Buffer }[] = []
  const server = net.createServer((sock) => {
    let buf = Buffer.alloc(0)
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d])
      while (buf.length >= 12 && buf.length >= 12 + buf.readUInt32BE(8)) {
        const len = 12 + buf.readUInt32BE(8)
        const p = decodePacket(buf.subarray(0, len), key)
        buf = buf.subarray(len)
        seen.push(p)
        const out = script(p.header, p.body, seen.length)
        if (out === 'silent') continue
        if (!out) return void sock.destroy()
        const h = p.header
        sock.write(encodePacket({ majorVersion: 0xc, minorVersion: out.minor ?? h.minorVersion, type: h.type, seqNo: out.seqNo ?? h.seqNo + 1, flags: 0, sessionId: out.sessionId ?? h.sessionId }, key, out.body))
      }
    })
    sock.on('error', () => {})
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as net.AddressInfo).port
  return { port, seen, close: () => new Promise<void>((r) => server.close(() => r())) }
}

describe('tacacs client: sessions against a scripted server', () => {
  const reply = (status: number, serverMsg = '') => ({ body: encodeAuthenReply({ status, flags: 0, serverMsg, data: Buffer.alloc(0) }) })

  it('ASCII login: START with the user, CONTINUE with the user on GETUSER and the password on GETPASS; odd sequence numbers, one session id', async () => {
    const s = await scriptedServer(KEY, (h, _b, n) => (n === 1 ? reply(AuthenStatus.GETUSER) : n === 2 ? reply(AuthenStatus.GETPASS, 'Password: ') : reply(AuthenStatus.PASS)))
    try {
      const r = await new TacacsClient({ host: '127.0.0.1', port: s.port, key: KEY }).authenticateAscii('alice', 'pw', { remAddr: '192.0.2.1', port: 'vty3' })
      expect(r).to.include({ status: 'pass', pass: true, rounds: 3 })
      expect(s.seen.map((p) => p.header.seqNo)).to.deep.equal([1, 3, 5])
      expect(new Set(s.seen.map((p) => p.header.sessionId)).size).to.equal(1)
      expect(s.seen.map((p) => p.header.minorVersion)).to.deep.equal([0, 0, 0])
      expect(decodeAuthenStart(s.seen[0].body)).to.deep.include({ action: AuthenAction.LOGIN, authenType: AuthenType.ASCII, authenService: AuthenService.LOGIN, user: 'alice', port: 'vty3', remAddr: '192.0.2.1' })
      expect(decodeAuthenContinue(s.seen[1].body).userMsg.toString()).to.equal('alice')
      expect(decodeAuthenContinue(s.seen[2].body).userMsg.toString()).to.equal('pw')
    } finally {
      await s.close()
    }
  })

  it('PAP: one START of minor version 1 with the password as data; FAIL comes back as fail', async () => {
    const s = await scriptedServer(KEY, () => reply(AuthenStatus.FAIL, 'no'))
    try {
      const r = await new TacacsClient({ host: '127.0.0.1', port: s.port, key: KEY }).authenticatePap('bob', 'secret')
      expect(r).to.include({ status: 'fail', pass: false, serverMsg: 'no' })
      expect(s.seen[0].header.minorVersion).to.equal(1)
      expect(decodeAuthenStart(s.seen[0].body)).to.deep.include({ authenType: AuthenType.PAP })
      expect(decodeAuthenStart(s.seen[0].body).data.toString()).to.equal('secret')
    } finally {
      await s.close()
    }
  })

  it('authorization: service, cmd (cmd* for an exec shell) and cmd-arg pairs out, status and AV pairs back', async () => {
    const s = await scriptedServer(KEY, (_h, b) =>
      decodeAuthorRequest(b).args.includes('cmd*')
        ? { body: encodeAuthorResponse({ status: AuthorStatus.PASS_REPL, args: ['priv-lvl=7'], serverMsg: '', data: Buffer.alloc(0) }) }
        : { body: encodeAuthorResponse({ status: AuthorStatus.FAIL, args: [], serverMsg: 'denied', data: Buffer.alloc(0) }) },
    )
    try {
      const c = new TacacsClient({ host: '127.0.0.1', port: s.port, key: KEY })
      expect(await c.authorize('carol', { cmd: '' })).to.deep.include({ status: 'pass_repl', permitted: true, args: ['priv-lvl=7'] })
      expect(await c.authorize('carol', { cmd: 'show', args: ['version', '<cr>'], privLvl: 15 })).to.deep.include({ status: 'fail', permitted: false, serverMsg: 'denied' })
      expect(decodeAuthorRequest(s.seen[0].body).args).to.deep.equal(['service=shell', 'cmd*'])
      expect(decodeAuthorRequest(s.seen[1].body)).to.deep.include({ privLvl: 15, args: ['service=shell', 'cmd=show', 'cmd-arg=version', 'cmd-arg=<cr>'] })
    } finally {
      await s.close()
    }
  })

  it('accounting: the start, stop and watchdog flags, the reply status', async () => {
    const s = await scriptedServer(KEY, () => ({ body: encodeAcctReply({ status: AcctStatus.SUCCESS, serverMsg: '', data: Buffer.alloc(0) }) }))
    try {
      const c = new TacacsClient({ host: '127.0.0.1', port: s.port, key: KEY })
      for (const flags of ['start', 'stop', 'watchdog', ['start', 'watchdog']] as const) expect((await c.account('dave', { flags: flags as any, args: ['task_id=9'] })).ok).to.equal(true)
      expect(s.seen.map((p) => decodeAcctRequest(p.body).flags)).to.deep.equal([AcctFlag.START, AcctFlag.STOP, AcctFlag.WATCHDOG, AcctFlag.START | AcctFlag.WATCHDOG])
    } finally {
      await s.close()
    }
  })

  it('refuses a reply with the wrong sequence number or session, says so when the body does not decode, and times out', async () => {
    const wrongSeq = await scriptedServer(KEY, () => ({ ...reply(AuthenStatus.PASS), seqNo: 4 }))
    const wrongSession = await scriptedServer(KEY, (h) => ({ ...reply(AuthenStatus.PASS), sessionId: (h.sessionId + 1) >>> 0 }))
    const otherKey = await scriptedServer(Buffer.from('another key'), () => reply(AuthenStatus.PASS))
    const closes = await scriptedServer(KEY, () => null)
    const silent = await scriptedServer(KEY, () => 'silent')
    try {
      const at = (port: number, timeoutMs = 2000) => new TacacsClient({ host: '127.0.0.1', port, key: KEY, timeoutMs })
      const failure = (p: Promise<unknown>) => p.then(() => null, (e: Error) => e)
      expect(await failure(at(wrongSeq.port).authenticatePap('u', 'p'))).to.be.instanceOf(TacacsProtocolError).with.property('message').that.match(/sequence number 4/)
      expect(await failure(at(wrongSession.port).authenticatePap('u', 'p'))).to.be.instanceOf(TacacsProtocolError).with.property('message').that.match(/another session/)
      expect(await failure(at(otherKey.port).authenticatePap('u', 'p'))).to.be.instanceOf(TacacsProtocolError).with.property('message').that.match(/another key/)
      expect(await failure(at(closes.port).authenticatePap('u', 'p'))).to.be.instanceOf(TacacsProtocolError).with.property('message').that.match(/closed/)
      expect(await failure(at(silent.port, 300).authenticatePap('u', 'p'))).to.be.instanceOf(TacacsTimeoutError)
    } finally {
      for (const s of [wrongSeq, wrongSession, otherKey, closes, silent]) await s.close()
    }
  })
})

describe('tacacs client: against tac_plus-ng', function () {
  let dir: string
  let daemon: RunningTacPlusNg
  // A hand-written configuration, independent of the renderer.

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    const hash = sha512Crypt('pw-alice', { salt: 'abcdefgh' })
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-tacclient-'))
    const port = await freePort()
    const cfg = `id = spawnd { listen { address = 127.0.0.1 port = ${port} } }
id = tac_plus-ng {
  device "lab" { address = 127.21.0.0/24 key = "lab key #1" }
  profile "p" { script { if (service == shell) { if (cmd == "") { set priv-lvl = 15 permit } if (cmd =~ /^show /) permit deny } } }
  group "g"
  user "alice" { password login = crypt "${hash}" password pap = login member = "g" }
  ruleset { rule "r" { enabled = yes script { if (member == "g") { profile = "p" permit } } } }
}
`
    const file = path.join(dir, 'tac_plus-ng.cfg')
    writeFileSync(file, cfg, { mode: 0o600 })
    const check = await checkTacPlusNg(file)
    expect(check.ok, check.stderr).to.equal(true)
    daemon = await startTacPlusNg({ configFile: file, port })
  })
  after(async () => {
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const lab = (key = 'lab key #1') => new TacacsClient({ host: '127.0.0.1', port: daemon.port, key, localAddress: '127.21.0.9' })

  it('authenticates ASCII and PAP, and fails a wrong password', async () => {
    expect((await lab().authenticateAscii('alice', 'pw-alice')).status).to.equal('pass')
    expect((await lab().authenticatePap('alice', 'pw-alice')).status).to.equal('pass')
    expect((await lab().authenticatePap('alice', 'wrong')).status).to.equal('fail')
  })

  it('authorizes with PASS_ADD and the AV pairs, and answers FAIL', async () => {
    expect(await lab().authorize('alice', { cmd: '' })).to.deep.include({ status: 'pass_add', args: ['priv-lvl=15'] })
    expect((await lab().authorize('alice', { cmd: 'show', args: ['clock', '<cr>'] })).status).to.be.oneOf(['pass_add', 'pass_repl'])
    expect((await lab().authorize('alice', { cmd: 'reload', args: ['<cr>'] })).status).to.equal('fail')
  })

  it('gets accounting acknowledged', async () => {
    expect((await lab().account('alice', { flags: 'start', args: ['task_id=1', 'service=shell'] })).status).to.equal('success')
  })

  it('cannot read the daemon with another key', async () => {
    const e = await lab('not the key')
      .authorize('alice', { cmd: '' })
      .then(() => null, (x: Error) => x)
    expect(e).to.be.instanceOf(TacacsProtocolError)
  })
})
