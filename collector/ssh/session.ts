/**
 * One SSH session to one device: connect, check the host key against its pin before any
 * authentication, log in, drive the CLI as the profile says, and bring back the configuration's text.
 * Every way it can end is a status the core records (FetchStatus), never an exception. The bounds:
 * the connect timeout (handshake), the profile's idle limit (no output for that long), the job's
 * deadline (the whole session) and its byte cap, checked on every chunk so an endless device costs
 * at most the cap in memory.
 *
 * The credential lives in this function's scope for the session only; it is never logged, and the
 * detail texts name no secret.
 */
import { createHash } from 'node:crypto'
import ssh2 from 'ssh2'
import type { ClientChannel, ConnectConfig } from 'ssh2'
import type { CollectorProfile, DeviceCredential, FetchStatus } from '../wire.js'
import { linePattern, prefixPattern, type PromptMatcher } from './patterns.js'
import { commandOutput, Terminal } from './terminal.js'

const { Client } = ssh2

export interface SessionTarget {
  host: string
  port: number
  profile: CollectorProfile
  credential: DeviceCredential
  /** The pinned host key (`SHA256:<base64>`, OpenSSH's form), or null: the first key seen is accepted and reported. */
  hostKeySha256: string | null
  connectTimeoutMs: number
  /** How long the whole session may take, from the first connect. */
  deadlineMs: number
  maxBytes: number
  /** Aborting ends the session at once (the collector stopping): `timeout`. */
  signal?: AbortSignal
}

export interface SessionOutcome {
  status: FetchStatus
  hostKeySha256: string | null
  started_at: string
  finished_at: string
  output?: string
  detail?: string
}

/** OpenSSH's fingerprint of a host key blob: `SHA256:` and the unpadded base64 of its SHA-256. */
export function hostKeyFingerprint(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')
}

const samePin = (pin: string, seen: string) => pin.replace(/^SHA256:/, '').replace(/=+$/, '') === seen.replace(/^SHA256:/, '')

/** Old devices: SHA-1 key exchanges, ssh-dss host keys, CBC ciphers, appended after the modern ones. */
const LEGACY: ConnectConfig['algorithms'] = {
  kex: { append: ['diffie-hellman-group14-sha1', 'diffie-hellman-group-exchange-sha1', 'diffie-hellman-group1-sha1'], prepend: [], remove: [] },
  serverHostKey: { append: ['ssh-rsa', 'ssh-dss'], prepend: [], remove: [] },
  cipher: { append: ['aes128-cbc', 'aes256-cbc', '3des-cbc'], prepend: [], remove: [] },
  hmac: { append: ['hmac-sha1'], prepend: [], remove: [] },
}

/** Fetches one device's configuration. Never throws. */
export function fetchConfig(t: SessionTarget): Promise<SessionOutcome> {
  const started = new Date()
  const client = new Client()
  let seenKey: string | null = null
  let keyRefused = false
  let authenticated = false
  let settled = false
  let idle: NodeJS.Timeout | undefined
  let deadline: NodeJS.Timeout | undefined

  return new Promise<SessionOutcome>((resolve) => {
    const finish = (status: FetchStatus, extra: { output?: string; detail?: string } = {}) => {
      if (settled) return
      settled = true
      clearTimeout(idle)
      clearTimeout(deadline)
      t.signal?.removeEventListener('abort', onAbort)
      client.end()
      // A device that ignores the close must not keep the socket: destroy it shortly after.
      setTimeout(() => client.destroy(), 1000).unref()
      resolve({ status, hostKeySha256: seenKey, started_at: started.toISOString(), finished_at: new Date().toISOString(), ...extra })
    }
    const onAbort = () => finish('timeout', { detail: 'the collector stopped during the session' })
    if (t.signal?.aborted) return onAbort()
    t.signal?.addEventListener('abort', onAbort)
    deadline = setTimeout(() => finish('timeout', { detail: `the session took longer than ${Math.round(t.deadlineMs / 1000)} s` }), t.deadlineMs)

    const idleMs = Math.max(1, t.profile.command_timeout_seconds) * 1000
    const touch = (waitingFor: string) => {
      clearTimeout(idle)
      idle = setTimeout(() => finish('timeout', { detail: `no output for ${idleMs / 1000} s while waiting for ${waitingFor}` }), idleMs)
    }

    client.on('error', (err: Error & { level?: string }) => {
      if (keyRefused) return finish('host_key_mismatch', { detail: `the device's host key ${seenKey} is not the pinned ${t.hostKeySha256}` })
      if (err.level === 'client-authentication') return finish('auth_failed', { detail: 'the device refused the credential' })
      if (err.level === 'client-timeout') return finish('connect_failed', { detail: `no SSH handshake within ${Math.round(t.connectTimeoutMs / 1000)} s` })
      if (!authenticated) return finish('connect_failed', { detail: err.message })
      finish('protocol_error', { detail: err.message })
    })
    client.on('close', () => finish(authenticated ? 'protocol_error' : 'connect_failed', { detail: 'the device closed the connection' }))
    client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, answer) => {
      // Devices that ask for the password this way get it for every prompt; nothing else is known to answer.
      answer(prompts.map(() => t.credential.password ?? ''))
    })
    client.on('ready', () => {
      authenticated = true
      if (t.profile.mode === 'exec') runExec(client, t, touch, finish)
      else runShell(client, t, touch, finish)
    })

    const config: ConnectConfig = {
      host: t.host,
      port: t.port,
      username: t.credential.username,
      readyTimeout: t.connectTimeoutMs,
      keepaliveInterval: 0,
      tryKeyboard: t.credential.password !== undefined,
      // Runs during the key exchange, before any authentication: a device with another key never sees the credential.
      hostVerifier: (key: Buffer) => {
        seenKey = hostKeyFingerprint(key)
        if (t.hostKeySha256 && !samePin(t.hostKeySha256, seenKey)) {
          keyRefused = true
          return false
        }
        return true
      },
      ...(t.credential.password !== undefined ? { password: t.credential.password } : {}),
      ...(t.credential.private_key ? { privateKey: t.credential.private_key, ...(t.credential.passphrase ? { passphrase: t.credential.passphrase } : {}) } : {}),
      ...(t.profile.legacy_algorithms ? { algorithms: LEGACY } : {}),
    }
    try {
      client.connect(config)
    } catch (err) {
      // ssh2 reads the private key before it connects.
      finish('auth_failed', { detail: /privateKey|passphrase/i.test((err as Error).message) ? 'the private key (or its passphrase) could not be read' : (err as Error).message })
    }
  })
}

type Finish = (status: FetchStatus, extra?: { output?: string; detail?: string }) => void

/** The byte cap, on what the terminal keeps: an endless device is cut at the cap, not buffered. */
function overCap(term: Terminal, raw: number, t: SessionTarget): boolean {
  return term.completedChars + term.current.length > t.maxBytes || raw > 4 * t.maxBytes + (1 << 20)
}

function runExec(client: InstanceType<typeof Client>, t: SessionTarget, touch: (w: string) => void, finish: Finish): void {
  touch('the command output')
  client.exec(t.profile.command, (err, stream) => {
    if (err) return finish('protocol_error', { detail: `the device refused the command: ${err.message}` })
    const term = new Terminal()
    let raw = 0
    let code: number | null = null
    const onData = (d: Buffer) => {
      raw += d.length
      term.write(d)
      touch('the command output')
      if (overCap(term, raw, t)) finish('too_large', { detail: `the output passed ${t.maxBytes} bytes` })
    }
    stream.on('data', onData)
    stream.stderr.on('data', onData)
    stream.on('exit', (c: number | null) => (code = c))
    stream.on('close', () => {
      if (code !== null && code !== 0) return finish('protocol_error', { detail: `the command ended with status ${code}` })
      const lines = term.current === '' ? term.lines : [...term.lines, term.current.trimEnd()]
      finish('ok', { output: commandOutput(lines, '\0') })
    })
  })
}

interface Step {
  /** What the step waits for, and what it sends when it comes. */
  label: string
  wait: PromptMatcher
  /** Skips the step when this one shows instead (an optional login or enable step). */
  unless?: PromptMatcher
  send: string | null
  capture?: boolean
}

function shellSteps(p: CollectorProfile, c: DeviceCredential): Step[] {
  const prompt = linePattern(p.prompt)
  const steps: Step[] = []
  if (p.login_prompt) steps.push({ label: 'the login prompt', wait: linePattern(p.login_prompt), unless: prompt, send: p.login_answer ?? '' })
  if (p.enable_command) {
    steps.push({ label: 'the prompt', wait: prompt, send: p.enable_command })
    if (p.enable_prompt) steps.push({ label: 'the enable prompt', wait: linePattern(p.enable_prompt), unless: prompt, send: c.enable_secret ?? '' })
  }
  for (const pre of p.pre_commands) steps.push({ label: 'the prompt', wait: prompt, send: pre })
  steps.push({ label: 'the prompt', wait: prompt, send: p.command, capture: true })
  steps.push({ label: 'the prompt after the configuration', wait: prompt, send: null })
  return steps
}

function runShell(client: InstanceType<typeof Client>, t: SessionTarget, touch: (w: string) => void, finish: Finish): void {
  let steps: Step[]
  let pager: PromptMatcher | null
  try {
    steps = shellSteps(t.profile, t.credential)
    pager = t.profile.pager_pattern ? prefixPattern(t.profile.pager_pattern) : null
  } catch (err) {
    return finish('protocol_error', { detail: `the profile's pattern does not compile: ${(err as Error).message}` })
  }
  touch(steps[0].label)
  client.shell({ term: 'vt100', cols: 511, rows: 24 }, (err, stream: ClientChannel) => {
    if (err) return finish('protocol_error', { detail: `the device refused a shell: ${err.message}` })
    const term = new Terminal()
    let raw = 0
    let i = 0
    // A prompt counts only after a new line began since the last thing sent: the echo of our own
    // command on the prompt's line must not be taken for the next prompt.
    let linesAtSend = -1
    let captured = false
    const send = (text: string) => {
      linesAtSend = term.lines.length
      stream.write(text + '\n')
    }
    const advance = () => {
      while (i < steps.length) {
        const line = term.current
        if (term.lines.length <= linesAtSend) return
        if (pager && line.trim() !== '' && pager.test(line)) {
          // Answered, and its text forgotten; the erase sequence that follows only blanks the new line.
          term.clearCurrent()
          stream.write(t.profile.pager_answer || ' ')
          return
        }
        const step = steps[i]
        if (step.unless && step.unless.test(line) && !step.wait.test(line)) {
          i++
          continue
        }
        if (!step.wait.test(line)) return
        i++
        if (step.label === 'the enable prompt' && !t.credential.enable_secret) {
          return finish('protocol_error', { detail: 'the device asks for an enable secret and the credential has none' })
        }
        if (step.send === null) {
          const output = commandOutput(term.lines, t.profile.command)
          stream.write('exit\n')
          return finish('ok', { output })
        }
        if (step.capture) {
          // What came before the command is not the configuration: drop it, keep the prompt's line for the echo.
          term.dropLines(term.lines.length)
          captured = true
        }
        send(step.send)
        touch(steps[i]?.label ?? 'the prompt')
        return
      }
    }
    stream.on('data', (d: Buffer) => {
      raw += d.length
      term.write(d)
      touch(steps[Math.min(i, steps.length - 1)].label)
      if (overCap(term, raw, t)) return finish('too_large', { detail: `the output passed ${t.maxBytes} bytes` })
      advance()
    })
    stream.stderr.on('data', () => {})
    stream.on('close', () =>
      finish('protocol_error', { detail: captured ? 'the device closed the session before the prompt came back' : `the device closed the session while waiting for ${steps[Math.min(i, steps.length - 1)].label}` }),
    )
  })
}
