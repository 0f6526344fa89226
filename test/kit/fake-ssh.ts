/**
 * A switch in the test process: an ssh2 Server that plays a device's CLI, for the collector's tests
 * and the fetch bench. It authenticates by password or public key, answers a PTY shell the way a
 * vendor's CLI does (a banner, a prompt, the echo of each command, paging with `--More--` and its
 * erase sequence, ANSI noise) or an exec request, and can misbehave: stay silent after login, print
 * forever, print 5 MB, or present another host key than the one pinned.
 *
 * It counts what the collector did (authentication attempts, commands), so a test can say "no
 * authentication was sent" and "the pager was answered".
 */
import { timingSafeEqual } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import ssh2 from 'ssh2'
import type { Connection, ServerChannel } from 'ssh2'
import { hostKeyFingerprint } from '../../collector/ssh/session.js'

const { Server, utils } = ssh2

export type FakeMode = 'normal' | 'paging' | 'silent' | 'endless' | 'huge'

/** How a vendor's CLI looks on the wire. */
export interface Personality {
  prompt: string
  banner?: string
  /** Asked before the prompt (an HPE "Press any key to continue"); any line answers it. */
  loginPrompt?: string
  /** Enable mode: the unprivileged prompt, the command, its password prompt and the secret. */
  enable?: { userPrompt: string; command: string; passwordPrompt: string; secret: string }
  /** The commands that turn paging off (answered with nothing). */
  pagingOff: string[]
  /** Other commands answered with nothing (terminal width …). */
  quiet?: string[]
  /** The command that prints the configuration. */
  command: string
  pagerText: string
  /** What the device sends after the pager is answered, to erase its text. */
  pagerErase: string
  /** Sent before each prompt and around output (an HPE's cursor moves and colours). */
  ansi?: { beforePrompt: string; beforeOutput: string }
}

export const CISCO_LIKE: Personality = {
  prompt: 'sw1#',
  banner: '\r\nUnauthorised access prohibited\r\n\r\n',
  pagingOff: ['terminal length 0'],
  quiet: ['terminal width 0'],
  command: 'show running-config',
  pagerText: ' --More-- ',
  pagerErase: '\b'.repeat(10) + ' '.repeat(10) + '\b'.repeat(10),
}

export interface FakeSwitchOptions {
  mode?: FakeMode
  personality?: Personality
  /** The configuration `command` prints (lines joined by \n; sent with \r\n). */
  config?: string
  /** Lines a page holds when paging is on. */
  pageLines?: number
  username?: string
  password?: string
  /** An OpenSSH public key line ("ssh-ed25519 AAAA…") accepted for `username`. */
  publicKey?: string
  /** The host key (OpenSSH private key); a fresh ed25519 key when absent. */
  hostKey?: string
  /** Delay before each answer (the bench's far-away devices). */
  latencyMs?: number
  host?: string
  /** 0: a free port. */
  port?: number
}

export interface FakeSwitch {
  host: string
  port: number
  /** The fingerprint the collector sees (`SHA256:…`). */
  hostKeySha256: string
  /** SSH connections accepted (before any key exchange). */
  connections: number
  /** Every authentication request received, `none` included. */
  authAttempts: number
  /** Commands received, in order, on every session. */
  commands: string[]
  pagerAnswers: number
  config: string
  close(): Promise<void>
}

/** An ed25519 key pair in OpenSSH's format. ssh2's generator now and then writes a key its own parser refuses: made again then. */
function keyPair(): { private: string; public: string } {
  for (;;) {
    const k = utils.generateKeyPairSync('ed25519')
    if (!(utils.parseKey(k.private) instanceof Error) && !(utils.parseKey(k.public) instanceof Error)) return k
  }
}

export function generateHostKey(): { privateKey: string; sha256: string } {
  const k = keyPair()
  return { privateKey: k.private, sha256: fingerprintOf(k.private) }
}

export function generateUserKey(): { privateKey: string; publicKey: string } {
  const k = keyPair()
  return { privateKey: k.private, publicKey: k.public }
}

export function fingerprintOf(privateKey: string): string {
  const parsed = utils.parseKey(privateKey)
  if (parsed instanceof Error) throw parsed
  return hostKeyFingerprint((Array.isArray(parsed) ? parsed[0] : parsed).getPublicSSH() as Buffer)
}

/** A configuration of about `bytes` bytes: numbered interfaces. */
export function sampleConfig(bytes: number, name = 'sw1'): string {
  const lines = ['!', `hostname ${name}`, '!']
  let size = 20
  for (let i = 0; size < bytes; i++) {
    const l = [`interface GigabitEthernet1/0/${i}`, ` description access port ${i}`, ' switchport mode access', ' switchport access vlan 10', '!']
    lines.push(...l)
    size += l.join('\n').length + 1
  }
  lines.push('end')
  return lines.join('\n')
}

const eq = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

export async function startFakeSwitch(o: FakeSwitchOptions = {}): Promise<FakeSwitch> {
  const p = o.personality ?? CISCO_LIKE
  const mode = o.mode ?? 'normal'
  const hostKey = o.hostKey ?? generateHostKey().privateKey
  const username = o.username ?? 'netops'
  const userKey = o.publicKey ? utils.parseKey(o.publicKey) : null
  if (userKey instanceof Error) throw userKey
  const state: FakeSwitch = {
    host: o.host ?? '127.0.0.1',
    port: 0,
    hostKeySha256: fingerprintOf(hostKey),
    connections: 0,
    authAttempts: 0,
    commands: [],
    pagerAnswers: 0,
    config: o.config ?? (mode === 'huge' ? sampleConfig(5 * 1024 * 1024) : sampleConfig(2000)),
    close: async () => {},
  }
  const later = (fn: () => void) => (o.latencyMs ? setTimeout(fn, o.latencyMs) : setImmediate(fn))

  const connections = new Set<Connection>()
  const server = new Server({ hostKeys: [hostKey] }, (conn) => {
    connections.add(conn)
    state.connections++
    conn.on('close', () => connections.delete(conn))
    conn.on('error', () => {})
    conn.on('authentication', (ctx) => {
      state.authAttempts++
      if (ctx.username !== username) return ctx.reject(['password', 'publickey'])
      if (ctx.method === 'password' && o.password !== undefined && eq(ctx.password, o.password)) return ctx.accept()
      if (ctx.method === 'publickey' && userKey) {
        const k = Array.isArray(userKey) ? userKey[0] : userKey
        if (ctx.key.algo !== k.type || !ctx.key.data.equals(k.getPublicSSH() as Buffer)) return ctx.reject(['password', 'publickey'])
        // Without a signature the client only asks whether the key would do.
        if (!ctx.signature) return ctx.accept()
        return k.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true ? ctx.accept() : ctx.reject()
      }
      ctx.reject(['password', 'publickey'])
    })
    conn.on('ready', () => {
      conn.on('session', (accept) => {
        const session = accept()
        session.on('pty', (ok) => ok?.())
        session.on('exec', (ok, _reject, info) => {
          const ch = ok()
          state.commands.push(info.command)
          later(() => {
            if (info.command !== p.command) {
              ch.stderr.write(`% unknown command ${info.command}\r\n`)
              ch.exit(1)
              return ch.end()
            }
            if (mode === 'silent') return
            if (mode === 'endless') return endless(ch)
            ch.write(state.config.replace(/\n/g, '\r\n') + '\r\n')
            ch.exit(0)
            ch.end()
          })
        })
        session.on('shell', (ok) => shell(ok()))
      })
    })
  })

  /** Prints lines until the client goes away, respecting backpressure so the fake's memory stays flat. */
  function endless(ch: ServerChannel): void {
    let n = 0
    const pump = () => {
      while (!ch.destroyed) {
        const more = ch.write(`interface Loopback${n++}\r\n description endless ${'x'.repeat(60)}\r\n`)
        if (!more) return void ch.once('drain', pump)
      }
    }
    ch.on('close', () => (n = -1))
    pump()
  }

  function shell(ch: ServerChannel): void {
    if (mode === 'silent') return
    let paging = mode === 'paging'
    let privileged = !p.enable
    let awaiting: 'login' | 'enable' | 'pager' | 'command' = p.loginPrompt ? 'login' : 'command'
    let pending: string[] = []
    let input = ''
    const promptText = () => (p.ansi?.beforePrompt ?? '') + (privileged ? p.prompt : p.enable!.userPrompt)
    const sendPage = () => {
      const page = pending.splice(0, o.pageLines ?? 20)
      ch.write(page.map((l) => l + '\r\n').join(''))
      if (pending.length > 0) {
        awaiting = 'pager'
        ch.write(p.pagerText)
      } else {
        awaiting = 'command'
        ch.write(promptText())
      }
    }
    const run = (cmd: string) => {
      state.commands.push(cmd)
      if (p.enable && !privileged && cmd === p.enable.command) {
        awaiting = 'enable'
        return ch.write(`\r\n${p.enable.passwordPrompt}`)
      }
      ch.write('\r\n')
      if (p.pagingOff.includes(cmd)) paging = false
      else if (cmd === 'exit') return ch.end()
      else if (cmd === p.command) {
        if (mode === 'endless') return endless(ch)
        if (p.ansi) ch.write(p.ansi.beforeOutput)
        if (paging) {
          pending = state.config.split('\n')
          return sendPage()
        }
        ch.write(state.config.replace(/\n/g, '\r\n') + '\r\n')
      } else if (!(p.quiet ?? []).includes(cmd) && cmd !== '') ch.write(`% Invalid input detected: ${cmd}\r\n`)
      ch.write(promptText())
    }
    ch.on('data', (d: Buffer) => {
      later(() => {
        if (awaiting === 'pager') {
          state.pagerAnswers++
          ch.write(p.pagerErase)
          return sendPage()
        }
        input += d.toString('utf8')
        let nl: number
        while ((nl = input.search(/[\r\n]/)) >= 0) {
          const line = input.slice(0, nl)
          input = input.slice(nl + 1).replace(/^\n/, '')
          if (awaiting === 'login') {
            awaiting = 'command'
            ch.write('\r\n' + promptText())
          } else if (awaiting === 'enable') {
            awaiting = 'command'
            if (line === p.enable!.secret) privileged = true
            else ch.write('\r\n% Access denied')
            ch.write('\r\n' + promptText())
          } else {
            // The CLI echoes what was typed on the prompt's line.
            ch.write(line)
            run(line)
          }
        }
      })
    })
    later(() => {
      ch.write((p.banner ?? '') + (p.loginPrompt ? p.loginPrompt : promptText()))
    })
  }

  await new Promise<void>((resolve) => server.listen(o.port ?? 0, state.host, resolve))
  state.port = (server.address() as AddressInfo).port
  state.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      // Clients still connected (a silent device's session) are cut.
      for (const c of connections) c.end()
    })
  return state
}
