/**
 * The TACACS+ packet codec of RFC 8907: the 12-byte header, the MD5 pad body
 * obfuscation (section 4.5), and the bodies of authentication (section 5),
 * authorization (section 6) and accounting (section 7). Pure functions over
 * Buffers; the connection handling lives in client.ts.
 */
import { createHash } from 'node:crypto'

export const HEADER_LENGTH = 12
export const MAJOR_VERSION = 0xc
export const MINOR_VERSION_DEFAULT = 0x0
/** Minor version 1: authentication START of PAP, CHAP, MS-CHAP (RFC 8907 section 5.4.2). */
export const MINOR_VERSION_ONE = 0x1

export const PacketType = { AUTHEN: 0x01, AUTHOR: 0x02, ACCT: 0x03 } as const
export type PacketTypeValue = (typeof PacketType)[keyof typeof PacketType]

export const HeaderFlag = { UNENCRYPTED: 0x01, SINGLE_CONNECT: 0x04 } as const

export const AuthenAction = { LOGIN: 0x01, CHPASS: 0x02, SENDAUTH: 0x04 } as const
export const AuthenType = { NOT_SET: 0x00, ASCII: 0x01, PAP: 0x02, CHAP: 0x03, MSCHAP: 0x05, MSCHAPV2: 0x06 } as const
export const AuthenService = {
  NONE: 0x00,
  LOGIN: 0x01,
  ENABLE: 0x02,
  PPP: 0x03,
  PT: 0x05,
  RCMD: 0x06,
  X25: 0x07,
  NASI: 0x08,
  FWPROXY: 0x09,
} as const
export const AuthenMethod = {
  NOT_SET: 0x00,
  NONE: 0x01,
  KRB5: 0x02,
  LINE: 0x03,
  ENABLE: 0x04,
  LOCAL: 0x05,
  TACACSPLUS: 0x06,
  GUEST: 0x08,
  RADIUS: 0x10,
  KRB4: 0x11,
  RCMD: 0x20,
} as const

export const AuthenStatus = { PASS: 0x01, FAIL: 0x02, GETDATA: 0x03, GETUSER: 0x04, GETPASS: 0x05, RESTART: 0x06, ERROR: 0x07, FOLLOW: 0x21 } as const
export const AuthenReplyFlag = { NOECHO: 0x01 } as const
export const AuthenContinueFlag = { ABORT: 0x01 } as const
export const AuthorStatus = { PASS_ADD: 0x01, PASS_REPL: 0x02, FAIL: 0x10, ERROR: 0x11, FOLLOW: 0x21 } as const
export const AcctFlag = { START: 0x02, STOP: 0x04, WATCHDOG: 0x08 } as const
export const AcctStatus = { SUCCESS: 0x01, ERROR: 0x02, FOLLOW: 0x21 } as const

export class TacacsProtocolError extends Error {
  override name = 'TacacsProtocolError'
}

export interface Header {
  majorVersion: number
  minorVersion: number
  type: number
  seqNo: number
  flags: number
  /** Unsigned 32-bit. */
  sessionId: number
  /** Length of the body that follows the header. */
  length: number
}

/** The version byte: major in the high nibble, minor in the low one. */
export const versionByte = (h: Pick<Header, 'majorVersion' | 'minorVersion'>): number => ((h.majorVersion & 0xf) << 4) | (h.minorVersion & 0xf)

export function encodeHeader(h: Header): Buffer {
  const b = Buffer.alloc(HEADER_LENGTH)
  b.writeUInt8(versionByte(h), 0)
  b.writeUInt8(h.type, 1)
  b.writeUInt8(h.seqNo, 2)
  b.writeUInt8(h.flags, 3)
  b.writeUInt32BE(h.sessionId >>> 0, 4)
  b.writeUInt32BE(h.length >>> 0, 8)
  return b
}

export function decodeHeader(b: Buffer): Header {
  if (b.length < HEADER_LENGTH) throw new TacacsProtocolError(`a header is ${HEADER_LENGTH} bytes, got ${b.length}`)
  const v = b.readUInt8(0)
  return {
    majorVersion: v >> 4,
    minorVersion: v & 0xf,
    type: b.readUInt8(1),
    seqNo: b.readUInt8(2),
    flags: b.readUInt8(3),
    sessionId: b.readUInt32BE(4),
    length: b.readUInt32BE(8),
  }
}

/**
 * The pseudo-pad of RFC 8907 section 4.5: MD5_1 = MD5(session_id, key, version, seq_no),
 * MD5_n = MD5(session_id, key, version, seq_no, MD5_n-1), concatenated and cut to `length`.
 */
export function pseudoPad(h: Pick<Header, 'sessionId' | 'majorVersion' | 'minorVersion' | 'seqNo'>, key: Buffer, length: number): Buffer {
  const prefix = Buffer.alloc(4)
  prefix.writeUInt32BE(h.sessionId >>> 0, 0)
  const tail = Buffer.from([versionByte(h), h.seqNo])
  const blocks: Buffer[] = []
  let prev: Buffer | null = null
  let total = 0
  while (total < length) {
    const md5 = createHash('md5').update(prefix).update(key).update(tail)
    if (prev) md5.update(prev)
    prev = md5.digest()
    blocks.push(prev)
    total += prev.length
  }
  return Buffer.concat(blocks).subarray(0, length)
}

/** XOR the body with the pad; the same call obfuscates and restores. An empty key leaves the body as is. */
export function obfuscate(h: Pick<Header, 'sessionId' | 'majorVersion' | 'minorVersion' | 'seqNo'>, key: Buffer, body: Buffer): Buffer {
  if (key.length === 0) return Buffer.from(body)
  const pad = pseudoPad(h, key, body.length)
  const out = Buffer.alloc(body.length)
  for (let i = 0; i < body.length; i++) out[i] = body[i] ^ pad[i]
  return out
}

/** A whole packet: header (with the body's length and, for an empty key, the UNENCRYPTED flag) and the obfuscated body. */
export function encodePacket(h: Omit<Header, 'length'>, key: Buffer, body: Buffer): Buffer {
  const flags = key.length === 0 ? h.flags | HeaderFlag.UNENCRYPTED : h.flags & ~HeaderFlag.UNENCRYPTED
  const header: Header = { ...h, flags, length: body.length }
  return Buffer.concat([encodeHeader(header), obfuscate(header, key, body)])
}

/** Header and clear body of one complete packet. */
export function decodePacket(b: Buffer, key: Buffer): { header: Header; body: Buffer } {
  const header = decodeHeader(b)
  if (b.length !== HEADER_LENGTH + header.length) throw new TacacsProtocolError(`packet of ${b.length} bytes, header announces ${HEADER_LENGTH + header.length}`)
  const raw = b.subarray(HEADER_LENGTH)
  const body = header.flags & HeaderFlag.UNENCRYPTED ? Buffer.from(raw) : obfuscate(header, key, raw)
  return { header, body }
}

// ---- field helpers ---------------------------------------------------------

const bytes = (s: string | Buffer | undefined): Buffer => (s === undefined ? Buffer.alloc(0) : Buffer.isBuffer(s) ? s : Buffer.from(s, 'utf8'))

function u8len(name: string, b: Buffer): number {
  if (b.length > 255) throw new TacacsProtocolError(`${name} is ${b.length} bytes, at most 255 fit`)
  return b.length
}

function u16len(name: string, b: Buffer): number {
  if (b.length > 0xffff) throw new TacacsProtocolError(`${name} is ${b.length} bytes, at most 65535 fit`)
  return b.length
}

class Reader {
  private off = 0
  constructor(
    private readonly b: Buffer,
    private readonly what: string,
  ) {}
  u8(): number {
    this.need(1)
    return this.b.readUInt8(this.off++)
  }
  u16(): number {
    this.need(2)
    const v = this.b.readUInt16BE(this.off)
    this.off += 2
    return v
  }
  take(n: number): Buffer {
    this.need(n)
    const v = this.b.subarray(this.off, this.off + n)
    this.off += n
    return Buffer.from(v)
  }
  end(): void {
    if (this.off !== this.b.length) throw new TacacsProtocolError(`${this.what}: ${this.b.length - this.off} bytes after the last field`)
  }
  private need(n: number): void {
    if (this.off + n > this.b.length) throw new TacacsProtocolError(`${this.what}: body too short (${this.b.length} bytes)`)
  }
}

// ---- authentication (RFC 8907 section 5) --------------------------------

/**
 * The layout authentication REPLY and CONTINUE and accounting REPLY share: one-byte fields
 * before (`lead`) or after (`tail`) two 16-bit lengths, then the message and the data.
 */
function encodeMsgData(lead: number[], msgName: string, msg: Buffer, data: Buffer, tail: number[]): Buffer {
  const head = Buffer.alloc(lead.length + 4 + tail.length)
  lead.forEach((v, i) => head.writeUInt8(v, i))
  head.writeUInt16BE(u16len(msgName, msg), lead.length)
  head.writeUInt16BE(u16len('data', data), lead.length + 2)
  tail.forEach((v, i) => head.writeUInt8(v, lead.length + 4 + i))
  return Buffer.concat([head, msg, data])
}

function decodeMsgData(r: Reader, leadBytes: number, tailBytes: number): { lead: number[]; msg: Buffer; data: Buffer; tail: number[] } {
  const lead = Array.from({ length: leadBytes }, () => r.u8())
  const ml = r.u16()
  const dl = r.u16()
  const tail = Array.from({ length: tailBytes }, () => r.u8())
  const out = { lead, msg: r.take(ml), data: r.take(dl), tail }
  r.end()
  return out
}

export interface AuthenStart {
  action: number
  privLvl: number
  authenType: number
  authenService: number
  user?: string
  port?: string
  remAddr?: string
  data?: string | Buffer
}

export function encodeAuthenStart(s: AuthenStart): Buffer {
  const user = bytes(s.user)
  const port = bytes(s.port)
  const rem = bytes(s.remAddr)
  const data = bytes(s.data)
  const head = Buffer.from([s.action, s.privLvl, s.authenType, s.authenService, u8len('user', user), u8len('port', port), u8len('rem_addr', rem), u8len('data', data)])
  return Buffer.concat([head, user, port, rem, data])
}

export function decodeAuthenStart(b: Buffer): Required<Omit<AuthenStart, 'data'>> & { data: Buffer } {
  const r = new Reader(b, 'authentication START')
  const action = r.u8()
  const privLvl = r.u8()
  const authenType = r.u8()
  const authenService = r.u8()
  const ul = r.u8()
  const pl = r.u8()
  const rl = r.u8()
  const dl = r.u8()
  const out = { action, privLvl, authenType, authenService, user: r.take(ul).toString(), port: r.take(pl).toString(), remAddr: r.take(rl).toString(), data: r.take(dl) }
  r.end()
  return out
}

export interface AuthenReply {
  status: number
  flags: number
  serverMsg: string
  data: Buffer
}

export const encodeAuthenReply = (p: AuthenReply): Buffer => encodeMsgData([p.status, p.flags], 'server_msg', bytes(p.serverMsg), bytes(p.data), [])

export function decodeAuthenReply(b: Buffer): AuthenReply {
  const { lead, msg, data } = decodeMsgData(new Reader(b, 'authentication REPLY'), 2, 0)
  return { status: lead[0], flags: lead[1], serverMsg: msg.toString(), data }
}

export interface AuthenContinue {
  userMsg?: string | Buffer
  data?: string | Buffer
  flags?: number
}

export const encodeAuthenContinue = (c: AuthenContinue): Buffer => encodeMsgData([], 'user_msg', bytes(c.userMsg), bytes(c.data), [c.flags ?? 0])

export function decodeAuthenContinue(b: Buffer): { userMsg: Buffer; data: Buffer; flags: number } {
  const { msg, data, tail } = decodeMsgData(new Reader(b, 'authentication CONTINUE'), 0, 1)
  return { userMsg: msg, data, flags: tail[0] }
}

// ---- authorization (RFC 8907 section 6) and accounting (section 7) ------

export interface RequestCommon {
  authenMethod: number
  privLvl: number
  authenType: number
  authenService: number
  user?: string
  port?: string
  remAddr?: string
  /** `attr=value` (mandatory) or `attr*value` (optional). */
  args: string[]
}

function encodeArgsBody(prefix: number[], r: RequestCommon): Buffer {
  const user = bytes(r.user)
  const port = bytes(r.port)
  const rem = bytes(r.remAddr)
  const args = r.args.map((a) => bytes(a))
  args.forEach((a, i) => u8len(`arg ${i}`, a))
  if (args.length > 255) throw new TacacsProtocolError(`${args.length} arguments, at most 255 fit`)
  const head = Buffer.from([
    ...prefix,
    r.authenMethod,
    r.privLvl,
    r.authenType,
    r.authenService,
    u8len('user', user),
    u8len('port', port),
    u8len('rem_addr', rem),
    args.length,
    ...args.map((a) => a.length),
  ])
  return Buffer.concat([head, user, port, rem, ...args])
}

function decodeArgsBody(r: Reader): Required<RequestCommon> {
  const authenMethod = r.u8()
  const privLvl = r.u8()
  const authenType = r.u8()
  const authenService = r.u8()
  const ul = r.u8()
  const pl = r.u8()
  const rl = r.u8()
  const n = r.u8()
  const lens = Array.from({ length: n }, () => r.u8())
  const user = r.take(ul).toString()
  const port = r.take(pl).toString()
  const remAddr = r.take(rl).toString()
  const args = lens.map((l) => r.take(l).toString())
  return { authenMethod, privLvl, authenType, authenService, user, port, remAddr, args }
}

export const encodeAuthorRequest = (r: RequestCommon): Buffer => encodeArgsBody([], r)

export function decodeAuthorRequest(b: Buffer): Required<RequestCommon> {
  const r = new Reader(b, 'authorization REQUEST')
  const out = decodeArgsBody(r)
  r.end()
  return out
}

export interface AuthorResponse {
  status: number
  args: string[]
  serverMsg: string
  data: Buffer
}

export function encodeAuthorResponse(p: AuthorResponse): Buffer {
  const msg = bytes(p.serverMsg)
  const data = bytes(p.data)
  const args = p.args.map((a) => bytes(a))
  const head = Buffer.alloc(6 + args.length)
  head.writeUInt8(p.status, 0)
  head.writeUInt8(args.length, 1)
  head.writeUInt16BE(u16len('server_msg', msg), 2)
  head.writeUInt16BE(u16len('data', data), 4)
  args.forEach((a, i) => head.writeUInt8(u8len(`arg ${i}`, a), 6 + i))
  return Buffer.concat([head, msg, data, ...args])
}

export function decodeAuthorResponse(b: Buffer): AuthorResponse {
  const r = new Reader(b, 'authorization RESPONSE')
  const status = r.u8()
  const n = r.u8()
  const ml = r.u16()
  const dl = r.u16()
  const lens = Array.from({ length: n }, () => r.u8())
  const serverMsg = r.take(ml).toString()
  const data = r.take(dl)
  const args = lens.map((l) => r.take(l).toString())
  r.end()
  return { status, args, serverMsg, data }
}

export interface AcctRequest extends RequestCommon {
  flags: number
}

export const encodeAcctRequest = (r: AcctRequest): Buffer => encodeArgsBody([r.flags], r)

export function decodeAcctRequest(b: Buffer): Required<AcctRequest> {
  const r = new Reader(b, 'accounting REQUEST')
  const flags = r.u8()
  const out = { flags, ...decodeArgsBody(r) }
  r.end()
  return out
}

export interface AcctReply {
  status: number
  serverMsg: string
  data: Buffer
}

export const encodeAcctReply = (p: AcctReply): Buffer => encodeMsgData([], 'server_msg', bytes(p.serverMsg), bytes(p.data), [p.status])

export function decodeAcctReply(b: Buffer): AcctReply {
  const { msg, data, tail } = decodeMsgData(new Reader(b, 'accounting REPLY'), 0, 1)
  return { status: tail[0], serverMsg: msg.toString(), data }
}
