import type { CollectorProfile } from '../../../../sdk/collector-protocol.js'

/** A command profile as the core holds it: what the collector gets, plus the lines the core strips and masks. */
export interface Profile extends CollectorProfile {
  description: string | null
  builtin: boolean
  /** Safe regexes (sdk/safe-regex.ts) for whole lines dropped before hashing: timestamps, uptime. */
  strip_lines: string[]
  /** Safe regexes matched at a line's start after its indentation: the rest of the line is hidden from readers. */
  secret_lines: string[]
}
