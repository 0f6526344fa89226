/**
 * Switches for the configuration-tracking tests: Debian's real OpenSSH server (`/usr/sbin/sshd -D -e`)
 * on loopback addresses (127.0.0.11, 127.0.0.12, …), one process per switch, each with its own
 * ed25519 host key and its own folder. Logins are by key only (a temporary AuthorizedKeysFile holding
 * the kit's client key, `PasswordAuthentication no`, `UsePAM no`, `StrictModes no` since the folder is
 * in /tmp), as the user running the tests, and whatever the client asks for, sshd runs the fake switch
 * command line (`ForceCommand node test/kit/fake-cli.mjs <dir>/<name>.cfg`): a test changes the
 * switch's running configuration by writing that file (`setConfig`).
 *
 * Without sshd (package openssh-server; .ci/run installs it), `sshdBinary()` is null and the tests skip
 * with SSHD_SKIP. As root, sshd wants its privilege-separation folder /run/sshd: the kit makes it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './postgres.js'

const SSHD = '/usr/sbin/sshd'
const SSH_KEYGEN = '/usr/bin/ssh-keygen'
export const SSHD_SKIP = `sshd not found at ${SSHD} (Debian package openssh-server; .ci/run installs it)`
export const sshdBinary = (): string | null => (existsSync(SSHD) && existsSync(SSH_KEYGEN) ? SSHD : null)

const FAKE_CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-cli.mjs')

export interface SwitchSpec {
  /** The switch's name: its prompt (`<name>#`) and its configuration file `<name>.cfg`. */
  name: string
  /** A loopback address: 127.0.0.11 plays the first switch, 127.0.0.12 the second. */
  address: string
  /** Default: a free port. */
  port?: number
  /** The running configuration at start. */
  config: string
}

export interface RunningSwitch {
  name: string
  address: string
  port: number
  /** The OpenSSH fingerprint of the host key, `SHA256:<base64 without padding>` (what `ssh-keygen -l` prints). */
  hostKeySha256: string
  configFile: string
  /** Replace the running configuration: the next `show running-config` prints it. */
  setConfig(text: string): void
  /** What sshd printed so far (`-e`: its log on stderr). */
  output(): string
}

export interface SshdSwitches {
  /** The login every switch accepts with `privateKey`: the user running the tests. */
  username: string
  /** The client key (OpenSSH format, no passphrase) that every switch's AuthorizedKeysFile holds. */
  privateKey: string
  switches: RunningSwitch[]
  stop(): Promise<void>
}

function keygen(file: string, comment: string): void {
  const r = spawnSync(SSH_KEYGEN, ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`)
}

function fingerprint(pubFile: string): string {
  const r = spawnSync(SSH_KEYGEN, ['-l', '-E', 'sha256', '-f', pubFile], { encoding: 'utf8' })
  const m = /SHA256:[A-Za-z0-9+/]+/.exec(r.stdout)
  if (r.status !== 0 || !m) throw new Error(`ssh-keygen -l failed: ${r.stderr}${r.stdout}`)
  return m[0]
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port }, () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

/** The sshd_config of one switch: loopback only, key logins only, the fake CLI forced. */
function sshdConfig(dir: string, spec: Required<SwitchSpec>, authorizedKeys: string, user: string): string {
  const cfg = path.join(dir, `${spec.name}.cfg`)
  // sshd hands ForceCommand to the user's shell: quote the paths for it.
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  return [
    `ListenAddress ${spec.address}:${spec.port}`,
    `HostKey ${path.join(dir, `${spec.name}_host_ed25519`)}`,
    `PidFile ${path.join(dir, `${spec.name}.pid`)}`,
    `AuthorizedKeysFile ${authorizedKeys}`,
    `AllowUsers ${user}`,
    'PermitRootLogin prohibit-password',
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'PrintMotd no',
    'PrintLastLog no',
    'X11Forwarding no',
    'AllowTcpForwarding no',
    'AllowAgentForwarding no',
    'PermitTunnel no',
    'LoginGraceTime 30',
    'LogLevel INFO',
    `ForceCommand ${q(process.execPath)} ${q(FAKE_CLI)} ${q(cfg)}`,
    '',
  ].join('\n')
}

/** Start one sshd per switch and wait until each accepts connections. */
export async function startSwitches(specs: SwitchSpec[]): Promise<SshdSwitches> {
  if (!sshdBinary()) throw new Error(SSHD_SKIP)
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-sshd-'))
  const user = os.userInfo().username
  keygen(path.join(dir, 'client_ed25519'), 'portcullis-test-collector')
  const authorizedKeys = path.join(dir, 'authorized_keys')
  writeFileSync(authorizedKeys, readFileSync(path.join(dir, 'client_ed25519.pub')), { mode: 0o600 })

  const children: ChildProcess[] = []
  const switches: RunningSwitch[] = []
  const stop = async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve()
            c.once('exit', () => resolve())
            c.kill('SIGTERM')
          }),
      ),
    )
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (const s of specs) {
      const spec = { ...s, port: s.port ?? (await freePort()) }
      const configFile = path.join(dir, `${spec.name}.cfg`)
      writeFileSync(configFile, spec.config)
      keygen(path.join(dir, `${spec.name}_host_ed25519`), spec.name)
      const cfgPath = path.join(dir, `${spec.name}_sshd_config`)
      writeFileSync(cfgPath, sshdConfig(dir, spec, authorizedKeys, user))
      const child = spawn(SSHD, ['-D', '-e', '-f', cfgPath], { stdio: ['ignore', 'ignore', 'pipe'] })
      children.push(child)
      let log = ''
      child.stderr!.on('data', (b) => (log += b))
      let ready = false
      for (let i = 0; i < 200 && child.exitCode === null; i++) {
        if ((ready = await accepts(spec.address, spec.port))) break
        await new Promise((r) => setTimeout(r, 50))
      }
      if (!ready) throw new Error(`sshd did not listen on ${spec.address}:${spec.port}:\n${log}`)
      switches.push({
        name: spec.name,
        address: spec.address,
        port: spec.port,
        hostKeySha256: fingerprint(path.join(dir, `${spec.name}_host_ed25519.pub`)),
        configFile,
        setConfig: (text) => writeFileSync(configFile, text),
        output: () => log,
      })
    }
  } catch (e) {
    await stop()
    throw e
  }
  return { username: user, privateKey: readFileSync(path.join(dir, 'client_ed25519'), 'utf8'), switches, stop }
}
