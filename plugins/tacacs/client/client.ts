/**
 * A small TACACS+ client (RFC 8907) for tests and diagnostics: one TCP
 * connection per session (single-connect off), a random session id, odd
 * sequence numbers from the client and even ones from the server, bodies
 * obfuscated with the shared key. Authentication (ASCII login with CONTINUE,
 * PAP, CHAP, MS-CHAPv1, MS-CHAPv2, enable), authorization and accounting.
 *
 * The server sees the connection's source address: pass `localAddress` (for
 * example 127.0.0.5 on Linux loopback) to act as the device with that address.
 */
import { createHash, randomBytes } from 'node:crypto'
import net from 'node:net'
import { mschapV1NtResponse, ntResponse } from '../../../sdk/index.js'
import {
  AcctFlag,
  AcctStatus,
  AuthenAction,
  AuthenMethod,
  AuthenService,
  AuthenStatus,
  AuthenType,
  AuthorStatus,
  HEADER_LENGTH,
  MAJOR_VERSION,
  MINOR_VERSION_DEFAULT,
  MINOR_VERSION_ONE,
  PacketType,
  TacacsProtocolError,
  decodeAcctReply,
  decodeAuthenReply,
  decodeAuthorResponse,
  decodeHeader,
  decodePacket,
  encodeAcctRequest,
  encodeAuthenContinue,
  encodeAuthenStart,
  encodeAuthorRequest,
  encodePacket,
  type Header,
} from './packet.js'

import type { AccountOptions, AcctOutcome, AcctResult, AuthenOutcome, ChallengeOptions, AuthenResult, AuthorizeOptions, AuthorOutcome, AuthorResult, SessionOptions, TacacsClientOptions } from './types.js'

export type * from './types.js'

export class TacacsTimeoutError extends Error {
  override name = 'TacacsTimeoutError'
}

/** A reply body that does not parse was most likely obfuscated with another key. */
function decodeBody<T>(decode: (b: Buffer) => T, body: Buffer): T {
  try {
    return decode(body)
  } catch (e) {
    if (e instanceof TacacsProtocolError) throw new TacacsProtocolError(`${e.message}: the reply does not decode, most likely the server holds another key for this client`)
    throw e
  }
}

const authenOutcome = (s: number): AuthenOutcome | null =>
  s === AuthenStatus.PASS ? 'pass' : s === AuthenStatus.FAIL ? 'fail' : s === AuthenStatus.ERROR ? 'error' : s === AuthenStatus.RESTART ? 'restart' : s === AuthenStatus.FOLLOW ? 'follow' : null

const authorOutcome = (s: number): AuthorOutcome => {
  switch (s) {
    case AuthorStatus.PASS_ADD:
      return 'pass_add'
    case AuthorStatus.PASS_REPL:
      return 'pass_repl'
    case AuthorStatus.FAIL:
      return 'fail'
    case AuthorStatus.FOLLOW:
      return 'follow'
    case AuthorStatus.ERROR:
      return 'error'
    default:
      throw new TacacsProtocolError(`unknown authorization status 0x${s.toString(16)}`)
  }
}

const acctOutcome = (s: number): AcctOutcome => {
  switch (s) {
    case AcctStatus.SUCCESS:
      return 'success'
    case AcctStatus.ERROR:
      return 'error'
    case AcctStatus.FOLLOW:
      return 'follow'
    default:
      throw new TacacsProtocolError(`unknown accounting status 0x${s.toString(16)}`)
  }
}

function acctFlagByte(f: AccountOptions['flags']): number {
  if (typeof f === 'number') return f
  const names = Array.isArray(f) ? f : [f]
  return names.reduce((acc, n) => acc | (n === 'start' ? AcctFlag.START : n === 'stop' ? AcctFlag.STOP : AcctFlag.WATCHDOG), 0)
}

/** One TACACS+ session over its own TCP connection. */
class Session {
  readonly sessionId = randomBytes(4).readUInt32BE(0)
  private seq = 1
  private buf = Buffer.alloc(0)
  private waiting: { resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null
  private failure: Error | null = null
  private readonly timer: NodeJS.Timeout

  private constructor(
    private readonly socket: net.Socket,
    private readonly key: Buffer,
    private readonly type: number,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.fail(new TacacsTimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs)
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d])
      this.deliver()
    })
    socket.on('error', (e) => this.fail(e))
    socket.on('close', () => this.fail(new TacacsProtocolError('the server closed the connection before answering')))
  }

  static open(o: { host: string; port: number; localAddress?: string; key: Buffer; type: number; timeoutMs: number }): Promise<Session> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: o.host, port: o.port, ...(o.localAddress ? { localAddress: o.localAddress } : {}) })
      socket.setNoDelay(true)
      const timer = setTimeout(() => {
        socket.destroy()
        reject(new TacacsTimeoutError(`no connection to ${o.host}:${o.port} within ${o.timeoutMs} ms`))
      }, o.timeoutMs)
      socket.once('error', (e) => {
        clearTimeout(timer)
        reject(e)
      })
      socket.once('connect', () => {
        clearTimeout(timer)
        socket.removeAllListeners('error')
        resolve(new Session(socket, o.key, o.type, o.timeoutMs))
      })
    })
  }

  /** Send a body with the next odd sequence number, and wait for the server's packet. */
  async exchange(body: Buffer, minorVersion: number = MINOR_VERSION_DEFAULT): Promise<{ header: Header; body: Buffer }> {
    if (this.seq > 255) throw new TacacsProtocolError('sequence number would wrap: the session must restart')
    const sent = this.seq
    const packet = encodePacket({ majorVersion: MAJOR_VERSION, minorVersion, type: this.type, seqNo: sent, flags: 0, sessionId: this.sessionId }, this.key, body)
    const reply = this.next()
    this.socket.write(packet)
    const raw = await reply
    const out = decodePacket(raw, this.key)
    const h = out.header
    if (h.majorVersion !== MAJOR_VERSION) throw new TacacsProtocolError(`reply of major version 0x${h.majorVersion.toString(16)}`)
    if (h.type !== this.type) throw new TacacsProtocolError(`reply of type ${h.type} to a request of type ${this.type}`)
    if (h.sessionId !== this.sessionId) throw new TacacsProtocolError('reply for another session')
    if (h.seqNo !== sent + 1) throw new TacacsProtocolError(`reply with sequence number ${h.seqNo}, expected ${sent + 1}`)
    this.seq = sent + 2
    return out
  }

  close(): void {
    clearTimeout(this.timer)
    this.failure ??= new TacacsProtocolError('session closed')
    this.socket.removeAllListeners('close')
    this.socket.on('error', () => {})
    this.socket.end()
    this.socket.destroy()
  }

  private next(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject }
      this.deliver()
      if (this.waiting && this.failure) {
        this.waiting = null
        reject(this.failure)
      }
    })
  }

  private deliver(): void {
    if (!this.waiting || this.buf.length < HEADER_LENGTH) return
    const h = decodeHeader(this.buf)
    if (h.length > 1 << 20) return this.fail(new TacacsProtocolError(`reply announces ${h.length} bytes`))
    const total = HEADER_LENGTH + h.length
    if (this.buf.length < total) return
    const packet = this.buf.subarray(0, total)
    this.buf = this.buf.subarray(total)
    const w = this.waiting
    this.waiting = null
    w.resolve(Buffer.from(packet))
  }

  private fail(e: Error): void {
    if (this.failure) return
    this.failure = e
    clearTimeout(this.timer)
    this.socket.destroy()
    const w = this.waiting
    this.waiting = null
    w?.reject(e)
  }
}

export class TacacsClient {
  private readonly key: Buffer
  private readonly timeoutMs: number

  constructor(private readonly o: TacacsClientOptions) {
    this.key = Buffer.isBuffer(o.key) ? o.key : Buffer.from(o.key, 'utf8')
    this.timeoutMs = o.timeoutMs ?? 5000
  }

  private async session<T>(type: number, s: SessionOptions, fn: (session: Session) => Promise<T>): Promise<T> {
    const localAddress = s.localAddress ?? this.o.localAddress
    const session = await Session.open({ host: this.o.host, port: this.o.port, key: this.key, type, timeoutMs: this.timeoutMs, ...(localAddress ? { localAddress } : {}) })
    try {
      return await fn(session)
    } finally {
      session.close()
    }
  }

  /**
   * ASCII login (authen_type ASCII, service LOGIN): START with the user name, then
   * CONTINUE with the user name (GETUSER) or the password (GETPASS, GETDATA) until
   * the server decides.
   */
  authenticateAscii(user: string, password: string, s: SessionOptions = {}): Promise<AuthenResult> {
    return this.asciiDialogue(AuthenService.LOGIN, user, password, s)
  }

  /**
   * Enable as Cisco IOS asks it (`aaa authentication enable default group tacacs+`): ASCII,
   * service ENABLE, the requested level in priv_lvl (default 15, what `enable` alone asks),
   * the enable password at the server's GETPASS.
   */
  enable(user: string, password: string, s: SessionOptions = {}): Promise<AuthenResult> {
    return this.asciiDialogue(AuthenService.ENABLE, user, password, { ...s, privLvl: s.privLvl ?? 15 })
  }

  private asciiDialogue(service: number, user: string, password: string, s: SessionOptions): Promise<AuthenResult> {
    return this.session(PacketType.AUTHEN, s, async (session) => {
      const request = encodeAuthenStart({
        action: AuthenAction.LOGIN,
        privLvl: s.privLvl ?? 1,
        authenType: AuthenType.ASCII,
        authenService: service,
        user,
        port: s.port ?? 'tty0',
        remAddr: s.remAddr ?? '',
      })
      let reply = decodeBody(decodeAuthenReply, (await session.exchange(request)).body)
      let rounds = 1
      for (;;) {
        const done = authenOutcome(reply.status)
        if (done) return { status: done, pass: done === 'pass', serverMsg: reply.serverMsg, data: reply.data, rounds }
        if (rounds >= 10) throw new TacacsProtocolError('the server kept asking after 10 rounds')
        const answer = reply.status === AuthenStatus.GETUSER ? user : password
        reply = decodeBody(decodeAuthenReply, (await session.exchange(encodeAuthenContinue({ userMsg: answer }))).body)
        rounds++
      }
    })
  }

  /** PAP login: one START of minor version 1 with the password in the data field. */
  authenticatePap(user: string, password: string, s: SessionOptions = {}): Promise<AuthenResult> {
    return this.singleStart('PAP', AuthenType.PAP, user, Buffer.from(password, 'utf8'), s)
  }

  /**
   * CHAP login (RFC 8907 §5.4.2.3): one START of minor version 1 whose data is the PPP id, the
   * challenge and MD5(id, password, challenge) (RFC 1994). Random id and 16-byte challenge unless given.
   */
  authenticateChap(user: string, password: string, s: ChallengeOptions = {}): Promise<AuthenResult> {
    const id = s.pppId ?? randomBytes(1)[0]
    const challenge = s.challenge ?? randomBytes(16)
    const response = createHash('md5').update(Buffer.from([id])).update(Buffer.from(password, 'utf8')).update(challenge).digest()
    return this.singleStart('CHAP', AuthenType.CHAP, user, Buffer.concat([Buffer.from([id]), challenge, response]), s)
  }

  /**
   * MS-CHAPv1 login (RFC 8907 §5.4.2.5): data is the PPP id, the 8-byte challenge and the 49-byte
   * MS-CHAP response (RFC 2433: LM response left zero, NT response, flags 1 = use the NT response).
   */
  authenticateMschapV1(user: string, password: string, s: ChallengeOptions = {}): Promise<AuthenResult> {
    const challenge = s.challenge ?? randomBytes(8)
    const response = Buffer.concat([Buffer.alloc(24), mschapV1NtResponse(challenge, password), Buffer.from([1])])
    return this.singleStart('MS-CHAPv1', AuthenType.MSCHAP, user, Buffer.concat([Buffer.from([s.pppId ?? randomBytes(1)[0]]), challenge, response]), s)
  }

  /**
   * MS-CHAPv2 login (RFC 8907 §5.4.2.6): data is the PPP id, the 16-byte authenticator challenge
   * and the 49-byte response (RFC 2759: peer challenge, 8 reserved zero bytes, NT response, flags 0).
   */
  authenticateMschapV2(user: string, password: string, s: ChallengeOptions & { peerChallenge?: Buffer } = {}): Promise<AuthenResult> {
    const challenge = s.challenge ?? randomBytes(16)
    const peer = s.peerChallenge ?? randomBytes(16)
    const response = Buffer.concat([peer, Buffer.alloc(8), ntResponse(challenge, peer, user, password), Buffer.from([0])])
    return this.singleStart('MS-CHAPv2', AuthenType.MSCHAPV2, user, Buffer.concat([Buffer.from([s.pppId ?? randomBytes(1)[0]]), challenge, response]), s)
  }

  /** The inbound logins that need one START (minor version 1) with everything in its data field. */
  private singleStart(what: string, authenType: number, user: string, data: Buffer, s: SessionOptions): Promise<AuthenResult> {
    return this.session(PacketType.AUTHEN, s, async (session) => {
      const request = encodeAuthenStart({
        action: AuthenAction.LOGIN,
        privLvl: s.privLvl ?? 1,
        authenType,
        authenService: AuthenService.LOGIN,
        user,
        port: s.port ?? 'tty0',
        remAddr: s.remAddr ?? '',
        data,
      })
      const reply = decodeBody(decodeAuthenReply, (await session.exchange(request, MINOR_VERSION_ONE)).body)
      const done = authenOutcome(reply.status)
      if (!done) throw new TacacsProtocolError(`${what} answered with status 0x${reply.status.toString(16)}`)
      return { status: done, pass: done === 'pass', serverMsg: reply.serverMsg, data: reply.data, rounds: 1 }
    })
  }

  /** One authorization REQUEST (`service=shell`, `cmd=…`, `cmd-arg=…`). */
  authorize(user: string, a: AuthorizeOptions = {}): Promise<AuthorResult> {
    const args = [`service=${a.service ?? 'shell'}`]
    if (a.cmd !== undefined) args.push(a.cmd === '' ? 'cmd*' : `cmd=${a.cmd}`)
    for (const x of a.args ?? []) args.push(`cmd-arg=${x}`)
    args.push(...(a.extraArgs ?? []))
    return this.session(PacketType.AUTHOR, a, async (session) => {
      const request = encodeAuthorRequest({
        authenMethod: a.authenMethod ?? AuthenMethod.TACACSPLUS,
        privLvl: a.privLvl ?? 1,
        authenType: a.authenType ?? AuthenType.ASCII,
        authenService: a.authenService ?? AuthenService.LOGIN,
        user,
        port: a.port ?? 'tty0',
        remAddr: a.remAddr ?? '',
        args,
      })
      const r = decodeBody(decodeAuthorResponse, (await session.exchange(request, a.minorVersion ?? MINOR_VERSION_DEFAULT)).body)
      const status = authorOutcome(r.status)
      return { status, permitted: status === 'pass_add' || status === 'pass_repl', args: r.args, serverMsg: r.serverMsg, data: r.data.toString() }
    })
  }

  /** One accounting REQUEST; the server's REPLY acknowledges it. */
  account(user: string, a: AccountOptions): Promise<AcctResult> {
    return this.session(PacketType.ACCT, a, async (session) => {
      const request = encodeAcctRequest({
        flags: acctFlagByte(a.flags),
        authenMethod: a.authenMethod ?? AuthenMethod.TACACSPLUS,
        privLvl: a.privLvl ?? 1,
        authenType: a.authenType ?? AuthenType.ASCII,
        authenService: a.authenService ?? AuthenService.LOGIN,
        user,
        port: a.port ?? 'tty0',
        remAddr: a.remAddr ?? '',
        args: a.args,
      })
      const r = decodeBody(decodeAcctReply, (await session.exchange(request, a.minorVersion ?? MINOR_VERSION_DEFAULT)).body)
      const status = acctOutcome(r.status)
      return { status, ok: status === 'success', serverMsg: r.serverMsg, data: r.data.toString() }
    })
  }
}
