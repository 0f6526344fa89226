/**
 * The one renderer contract: a pure function from a consistent database
 * snapshot to daemon files. Same data in, byte-identical files out. The deploy
 * pipeline (kernel) writes them to a new release folder, runs the daemon's own
 * check when its binary is present, and only then makes the release current.
 */
import path from 'node:path'
import type { Knex } from 'knex'
import { Nullable, Type, type Static } from './schema.js'

/**
 * The folder of a daemon's active release: the deploy keeps `<DATA_DIR>/releases/<daemon>/current`
 * pointing at the release it made current (kernel/deploy/files.ts). A file of the release that the
 * daemon must open by an absolute path (tac_plus-ng's MAVIS backend takes no relative one) is named
 * through it, so the path stays right across deploys.
 */
export const activeReleaseDir = (dataDir: string, daemon: string): string => path.join(dataDir, 'releases', daemon, 'current')

export interface RenderedFile {
  /** Path relative to the daemon's release folder. */
  path: string
  content: string
  /** Octal file mode; files holding secrets are 0o600. */
  mode: number
  /**
   * The secret values this file holds, as the data has them (before any quoting or escaping): device
   * keys and RADIUS secrets, password verifiers and kept passwords, the MFA internal key, the directory's
   * bind password… Declared by the code that writes them into the file. No view of a release shows any
   * of them: every view masks each value, and the forms it takes when written (`secretForms`), in every
   * file of the release (`releaseMasker`). The deploy keeps them beside the release folder's files
   * (never in the database), so a view of an older release masks the secrets it was rendered with.
   */
  secrets?: string[]
}

/** The daemon's own configuration check, run on a release folder before it is activated. */
export interface DaemonCheck {
  /** The binary: an absolute path, or a name looked up on PATH. Absent binary: the check is skipped, and the deploy says so. */
  binary: string
  /** Arguments for checking the release in `releaseDir` (e.g. `['-C', '-d', releaseDir]`). */
  args: (releaseDir: string) => string[]
  /** Treat any output on stderr as a failure (tac_plus-ng reports some errors there with exit 0). */
  stderrIsFailure?: boolean
}

/** How a supervised daemon runs in the foreground from its active release (node agent, daemons.supervise). */
export interface DaemonRun {
  /** The binary: absolute path or a name on PATH (the same server option as the check's binary). */
  binary: string
  /** Arguments to run the release in `releaseDir` (always `<DATA_DIR>/releases/<daemon>/current`) in the foreground. */
  args: (releaseDir: string) => string[]
  /**
   * A line the daemon prints once it listens (FreeRADIUS: "Ready to process requests"). With it, a start
   * counts as done when the line comes, however long loading its modules takes on a busy node; without
   * it, when the process has stayed up a moment (the supervisor's settle time).
   */
  ready?: RegExp
}

/** The unprivileged account a daemon runs as (server options of its plugin): names or numeric ids. */
export interface DaemonAccount {
  user: string
  group: string
}

/** A folder the daemon writes to (its logs, its pid file), and which of its files are dated logs (removed after deploy.log_retention_days). */
export interface DaemonFolder {
  directory: string
  logs?: RegExp
}

export interface ConfigRenderer {
  /** `<plugin-id>.<daemon>`, e.g. `tacacs.tac_plus-ng`. */
  id: string
  /** The daemon the files are for (a deploy target). */
  daemon: string
  /** `snapshot` is a repeatable-read transaction: read everything through it. */
  render(snapshot: Knex.Transaction): Promise<RenderedFile[]>
  /** How to check a rendered release with the daemon itself (read from the plugin's settings at deploy time); null: no check configured. */
  check?: () => Promise<DaemonCheck | null>
  /**
   * How the node's supervisor (server option daemons.supervise) runs the daemon in the foreground from
   * `current`, its output on stdout/stderr; null or absent: the daemon is not supervised here.
   */
  run?: () => Promise<DaemonRun | null>
  /**
   * The account the daemon drops to (the files name it too); null or absent: it runs as whoever
   * starts it. With an account, the deploy gives the release files to its group (read only, nothing
   * for others) and the log folders to it (group write).
   */
  account?: () => DaemonAccount | null
  /** The folders the daemon writes to: created by the deploy (given to the account's group), old dated logs removed. */
  folders?: () => DaemonFolder[]
  /**
   * Names of the cleartext credentials in a release's files (e.g. `user:<sha256 of the password>`):
   * after a deploy, an older release holding a name the new one does not is removed from disk, so no
   * release keeps a cleartext password that was turned off or changed.
   */
  cleartextIn?: (files: { path: string; content: string }[]) => string[]
  /**
   * What the files of an earlier `release` let in that the files rendered `now` no longer do (a user
   * no longer admitted, another password, an earlier expiry, a certificate on the CRL, a CA no longer
   * trusted), compared at `at`. A rollback to a release for which any renderer of the daemon names one
   * is refused (409 DEPLOY_ROLLBACK_REVOKES_ACCESS), so no rollback brings back revoked access.
   */
  revokedSince?: (release: { path: string; content: string }[], now: { path: string; content: string }[], at: Date) => AccessRevocation[]
}

/**
 * One access an earlier release grants that a release rendered now does not (`ConfigRenderer.revokedSince`).
 * For `user`, the kernel names why from the account (disabled, deleted, network login off, expired);
 * for `endpoint`, whether it was taken out of its group or deleted, and when.
 */
export interface AccessRevocation {
  /**
   * `user`: a network user, by name; `certificate`: a client certificate, by serial (hex); `ca`: a
   * trusted CA, by subject; `endpoint`: a device MAB lets in by its MAC (canonical, aa:bb:cc:dd:ee:ff),
   * which the release places in an endpoint group and the files rendered now place in none.
   */
  subject: 'user' | 'certificate' | 'ca' | 'endpoint'
  name: string
  /**
   * `not_admitted`: the user is refused or unknown now (an endpoint: in no endpoint group now); `password_changed`: the release holds a password
   * the user no longer has; `expires_sooner`: the user's expiry is earlier now; `certificate_revoked`:
   * on the CRL now; `trust_removed`: the CA is no longer trusted.
   */
  change: 'not_admitted' | 'password_changed' | 'expires_sooner' | 'certificate_revoked' | 'trust_removed'
  /** When, where the files say it (the CRL's revocation date, the expiry); null otherwise. ISO 8601. */
  at: string | null
}

/** What a daemon's files let one user in with: the credential (a verifier, or a marker such as "directory"; null: refused or no password) and the expiry (seconds since 1970). */
export interface UserAdmission {
  credential: string | null
  expires: number | null
}

/**
 * The users an earlier release admits (a credential, not expired at `at`) whom the files rendered now
 * refuse, admit with another credential, or admit for less long: each renderer reads its own files into
 * `UserAdmission`s, and this one rule says what counts as revoked, the same for every daemon.
 */
export function usersRevokedSince(before: ReadonlyMap<string, UserAdmission>, after: ReadonlyMap<string, UserAdmission>, at: Date): AccessRevocation[] {
  const nowSeconds = Math.floor(at.getTime() / 1000)
  const out: AccessRevocation[] = []
  for (const [name, old] of [...before].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // The release refuses this user by itself (refused, no password, or its own expiry has passed).
    if (old.credential === null || (old.expires !== null && old.expires <= nowSeconds)) continue
    const cur = after.get(name)
    if (!cur || cur.credential === null) out.push({ subject: 'user', name, change: 'not_admitted', at: null })
    else if (cur.credential !== old.credential) out.push({ subject: 'user', name, change: 'password_changed', at: null })
    else if (cur.expires !== null && (old.expires === null || cur.expires < old.expires)) {
      out.push({ subject: 'user', name, change: cur.expires <= nowSeconds ? 'not_admitted' : 'expires_sooner', at: new Date(cur.expires * 1000).toISOString() })
    }
  }
  return out
}

/** One file of the release that is active (deployed) for a daemon. */
export interface DeployedFile {
  path: string
  /** Bytes of `content` as shown (masked unless revealed): never the size of the unmasked file. */
  size: number
  /** Of `content` as shown (masked unless revealed): never a hash of the unmasked file, which would let anyone test a guessed secret. */
  sha256: string
  /** Octal mode as a string, e.g. `0600`. */
  mode: string
  /** The text, with secret values replaced by `***` unless revealed. */
  content: string
}

export interface DeployedConfig {
  daemon: string
  /** The release folder's name (`<timestamp>-<short id>`). */
  release: string
  deploy_id: string
  activated_at: string
  files: DeployedFile[]
}

/** Whether a daemon has changes not yet deployed (kernel/deploy/pending.ts). */
export interface PendingDaemon {
  daemon: string
  /** What a deploy would render now differs from the active release's files (or nothing is deployed). */
  pending: boolean
  active_release: string | null
  deploy_id: string | null
  deployed_at: string | null
}

export interface PendingState {
  /** When the compared render was made (a poll may answer from it while nothing audited changed: kernel/deploy/pending.ts). */
  checked_at: string
  daemons: PendingDaemon[]
}

/** A folder a daemon writes its dated logs to (a `DaemonFolder` with `logs`), as its renderer is configured now. */
export interface DaemonLogFolder {
  daemon: string
  directory: string
}

/** What the kernel's deploy pipeline shows plugins: the files on disk of a daemon's active release. */
export interface DeploysService {
  /** Every registered renderer's log folders: where the daemons write, so a reader of their logs follows the one setting. */
  logFolders(): DaemonLogFolder[]
  /** The active release's files read from disk, or null when nothing is deployed for `daemon`. */
  currentFiles(daemon: string, opts?: { reveal?: boolean }): Promise<DeployedConfig | null>
  /** Per daemon some renderer writes: changes not yet deployed (cached by database snapshot, cheap to poll). */
  pending(): Promise<PendingState>
  /**
   * Called on this node each time a release of a daemon became active here (a deploy or a rollback)
   * and its reload command ran: what the daemon answers from has changed. A plugin whose data the
   * daemon reads from its files acts on it then (the NAC sends the Changes of Authorization that
   * waited for the tree carrying the change). A listener's failure is logged, never the deploy's.
   */
  onActivated(listener: (daemon: string) => void | Promise<void>): void
  /**
   * A deploy of `daemon` the platform makes by itself (actor: none, audited with `comment`), for data
   * the daemon reads from its files that changed outside an administrator's edit: a guest the captive
   * portal registered. Requests are coalesced (those arriving during a deploy share the next one).
   * Resolves once a release rendered after the call is active on this node and reloaded; rejects
   * with the deploy's error (a failed check …). Everything pending goes live with it, as with any deploy.
   */
  request(daemon: string, comment: string): Promise<void>
}

const SECRET_NAME = /(secret|key|password)/i

/** What every masked secret becomes: one fixed mark, whatever the secret's length. */
export const SECRET_MASK = '***'

const hexOf = (s: string) => Buffer.from(s, 'utf8').toString('hex')

/**
 * The forms a secret value may take written in a daemon's file: as is; backslash-escaped in a
 * double- or single-quoted string (FreeRADIUS, tac_plus-ng, Perl), the quote alone or with the
 * backslash, with control characters as
 * octal (tac_plus-ng) or as JSON escapes; hexadecimal (upper and lower case, as `0x…` octets or an NT
 * hash is written); URL-encoded; base64.
 */
export function secretForms(secret: string): string[] {
  if (!secret) return []
  const octal = (q: string) => {
    let out = ''
    for (const ch of secret) {
      const c = ch.codePointAt(0)!
      if (ch === '\\' || ch === q) out += '\\' + ch
      else if (c < 0x20 || c === 0x7f) out += '\\' + c.toString(8).padStart(3, '0')
      else out += ch
    }
    return out
  }
  const hex = hexOf(secret)
  const forms = [
    secret,
    secret.replace(/[\\"]/g, (c) => '\\' + c),
    secret.replace(/[\\']/g, (c) => '\\' + c),
    // Some writers escape the quote alone (FreeRADIUS's single-quoted rlm_ldap values).
    secret.replace(/"/g, '\\"'),
    secret.replace(/'/g, "\\'"),
    octal('"'),
    octal("'"),
    JSON.stringify(secret).slice(1, -1),
    hex,
    hex.toUpperCase(),
    encodeURIComponent(secret),
    Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, ''),
  ]
  // A secret that is itself hexadecimal (an NT hash) is written in either case.
  if (/^[0-9A-Fa-f]+$/.test(secret)) forms.push(secret.toLowerCase(), secret.toUpperCase())
  return [...new Set(forms.filter((f) => f !== ''))]
}

/** The first code units of a form that pick its bucket: a form shorter than this is looked up whole. */
const PREFIX = 8

/**
 * Replace every occurrence of each secret (in each of its `secretForms`) with `***`, longest first, in
 * one pass over the text whatever the number of secrets: a release with ten thousand users' verifiers
 * masks in linear time. The candidates at a position are found by a hash of its first 1 to 8 code units.
 */
export function secretValueMasker(secrets: Iterable<string>): (text: string) => string {
  const tables: Map<number, string[]>[] = Array.from({ length: PREFIX }, () => new Map())
  let any = false
  for (const s of secrets) {
    for (const f of secretForms(s)) {
      const k = Math.min(f.length, PREFIX)
      let h = 0
      for (let j = 0; j < k; j++) h = (Math.imul(h, 31) + f.charCodeAt(j)) | 0
      const list = tables[k - 1].get(h)
      if (!list) tables[k - 1].set(h, [f])
      else if (!list.includes(f)) list.push(f)
      any = true
    }
  }
  if (!any) return (text) => text
  for (const t of tables) for (const l of t.values()) l.sort((a, b) => b.length - a.length)
  const used = tables.map((t) => t.size > 0)
  return (text) => {
    let out = ''
    let last = 0
    let i = 0
    const n = text.length
    while (i < n) {
      let h = 0
      let best = 0
      for (let k = 1; k <= PREFIX && i + k <= n; k++) {
        h = (Math.imul(h, 31) + text.charCodeAt(i + k - 1)) | 0
        if (!used[k - 1]) continue
        const cands = tables[k - 1].get(h)
        if (cands) for (const c of cands) if (c.length > best && text.startsWith(c, i)) { best = c.length; break }
      }
      if (best) {
        out += text.slice(last, i) + SECRET_MASK
        i += best
        last = i
      } else i++
    }
    return last ? out + text.slice(last) : text
  }
}

/**
 * How every view shows a file of a release: each secret value the render declared masked wherever
 * it appears (the guarantee), then the values of lines naming a secret, key or password (a release
 * written before renderers declared their secrets, and a second net).
 */
export function releaseMasker(secrets: Iterable<string>): (text: string) => string {
  const values = secretValueMasker(secrets)
  return (text) => maskConfigSecrets(values(text))
}
const ASSIGN = /^(\s*)([^=\n]*?)(\s*(?::=|==|\+=|=)\s*)(\S.*)$/

/**
 * Mask the values of configuration lines whose name holds `secret`, `key` or
 * `password` (FreeRADIUS `secret = …`, `Crypt-Password := …`, `NT-Password`,
 * tac_plus-ng `key = …`, `password login = crypt …`): the value becomes `***`.
 */
export function maskConfigSecrets(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const m = ASSIGN.exec(line)
      if (!m || !SECRET_NAME.test(m[2]) || m[2].trimStart().startsWith('#')) return line
      return `${m[1]}${m[2]}${m[3]}***`
    })
    .join('\n')
}

/**
 * The response schema of a "configuration deployed on disk" route (e.g. GET
 * /radius/config/preview). Before the first deploy the answer is still 200, an
 * explained empty state: `deployed: false`, no release, no files, and a
 * `detail` saying how to deploy (a fresh install is not an error).
 */
export const DeployedConfigResponse = Type.Object(
  {
    daemon: Type.String(),
    deployed: Type.Boolean({ description: 'Whether a release of this daemon is active on the disk of the node that answers. False on a fresh install.' }),
    detail: Nullable(Type.String({ description: 'Why nothing is shown and what to do (when `deployed` is false, in the caller\'s language); null otherwise.' })),
    release: Nullable(Type.String({ description: 'Release folder name under `<DATA_DIR>/releases/<daemon>/`: `<UTC timestamp>-<short deploy id>`. Null while nothing is deployed.' })),
    deploy_id: Nullable(Type.String({ description: 'The deploy that wrote the release (empty when the database has no record of it). Null while nothing is deployed.' })),
    activated_at: Nullable(Type.String({ format: 'date-time', description: 'Null while nothing is deployed.' })),
    files: Type.Array(
      Type.Object(
        {
          path: Type.String({ description: 'Relative to the release folder.' }),
          size: Type.Integer({ minimum: 0, description: 'Bytes of `content` as shown: of the masked text unless revealed (never of the file on disk, whose size would tell a secret\'s length).' }),
          sha256: Type.String({ description: 'SHA-256 of `content` as shown: of the masked text unless revealed (never of the file on disk, which would let anyone confirm a guessed secret offline).' }),
          mode: Type.String({ description: 'Octal, e.g. `0600`.' }),
          content: Type.String({ description: 'The text; every secret value the release was rendered with (device keys, RADIUS secrets, verifiers, the MFA internal key, the directory bind password…), wherever it appears and however it is escaped, and the values of lines naming a secret, key or password, are `***` unless revealed.' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'DeployedConfigResponse', additionalProperties: false },
)

/** The answer of a "configuration deployed on disk" route: the active release, or the explained empty state. */
export function deployedConfigAnswer(daemon: string, cfg: DeployedConfig | null, t: (key: string, vars?: Record<string, unknown>) => string): Static<typeof DeployedConfigResponse> {
  if (cfg) return { ...cfg, deployed: true, detail: null }
  return { daemon, deployed: false, detail: t('core:deploy.nothing_deployed', { daemon }), release: null, deploy_id: null, activated_at: null, files: [] }
}

/** `?reveal=true`: show secret values (needs the permission `config.reveal` too). */
export const RevealQuery = Type.Object({ reveal: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false })

/**
 * Whether a caller may see secret values: the flag and the permission (`config.reveal` for rendered daemon
 * configuration; a plugin names its own, e.g. `ncm.reveal` for tracked device configurations). Administrators
 * hold every permission.
 */
export const mayReveal = (actor: { isAdmin: boolean; permissions: ReadonlySet<string> } | null, flag: boolean | undefined, permission = 'config.reveal'): boolean =>
  flag === true && !!actor && (actor.isAdmin || actor.permissions.has(permission))
