/** What the TACACS+ client takes and answers: options of a session, the three kinds of request and their results. */
import type { AcctFlag } from './packet.js'

export interface TacacsClientOptions {
  host: string
  port: number
  /** The shared secret; an empty key sends clear bodies with the UNENCRYPTED flag. */
  key: string | Buffer
  /** For one whole session (connect, every exchange). Default 5000 ms. */
  timeoutMs?: number
  /** Source address of every connection unless a call gives its own. */
  localAddress?: string
}

/** What every request may carry about the NAS side. */
export interface SessionOptions {
  /** The `rem_addr` field: where the user connects from. Default empty. */
  remAddr?: string
  /** The `port` field: the NAS line (`tty1`, `vty0`). Default `tty0`. */
  port?: string
  /** Source address of this session's connection. */
  localAddress?: string
  /** Privilege level in the request. Default 1. */
  privLvl?: number
  /**
   * Authorization and accounting: the header's minor version. Default 0, as RFC 8907 asks; Palo Alto
   * systems send 1 (tac_plus-ng answers those only with `bug compatibility = 2`).
   */
  minorVersion?: 0 | 1
}

/** The challenge-response logins (CHAP, MS-CHAP): random values unless a test fixes them. */
export interface ChallengeOptions extends SessionOptions {
  /** The PPP identifier byte. */
  pppId?: number
  /** The server's challenge as the NAS got it (CHAP: any length, 16 by default; MS-CHAPv1: 8; MS-CHAPv2: 16). */
  challenge?: Buffer
}

export type AuthenOutcome = 'pass' | 'fail' | 'error' | 'restart' | 'follow'

export interface AuthenResult {
  status: AuthenOutcome
  /** True only on PASS. */
  pass: boolean
  serverMsg: string
  data: Buffer
  /** Packets the server sent. */
  rounds: number
}

export interface AuthorizeOptions extends SessionOptions {
  /** Default `shell`. */
  service?: string
  /** The command word: `show`. An empty string asks for an exec shell (sent as `cmd*`, as IOS does). Omitted: no cmd pair. */
  cmd?: string
  /** `cmd-arg=` pairs in order (a NAS sends `<cr>` last). */
  args?: string[]
  /** Further pairs as sent (`protocol=ip`, `priv-lvl*15`). */
  extraArgs?: string[]
  authenMethod?: number
  authenType?: number
  authenService?: number
}

export type AuthorOutcome = 'pass_add' | 'pass_repl' | 'fail' | 'error' | 'follow'

export interface AuthorResult {
  status: AuthorOutcome
  /** PASS_ADD or PASS_REPL. */
  permitted: boolean
  /** The AV pairs the server returned (`priv-lvl=15`). */
  args: string[]
  serverMsg: string
  data: string
}

export type AcctFlagName = 'start' | 'stop' | 'watchdog'

export interface AccountOptions extends SessionOptions {
  /** One flag, several (`['start', 'watchdog']` is an update with start data), or the raw flag byte. */
  flags: AcctFlagName | AcctFlagName[] | number
  /** The AV pairs (`task_id=1`, `service=shell`, `cmd=show version <cr>`, `elapsed_time=5`). */
  args: string[]
  authenMethod?: number
  authenType?: number
  authenService?: number
}

export type AcctOutcome = 'success' | 'error' | 'follow'

export interface AcctResult {
  status: AcctOutcome
  /** SUCCESS. */
  ok: boolean
  serverMsg: string
  data: string
}
