/**
 * Command lines as a report shows them. A command typed on a device can carry a secret
 * (`username bob secret 0 S3cret`, `tacacs-server key Xyz`, `snmp-server community public`), and a
 * report is a read-only view that leaves the platform by mail: everything after a word that
 * introduces a secret is hidden, and every device's TACACS+ key and RADIUS secret known to the
 * inventory is masked by value wherever it appears (a key typed after a word we do not know).
 */
import { secretValueMasker } from '../../../sdk/index.js'

export const SECRET_HIDDEN = '<secret hidden>'

/** Words after which the rest of a command is a secret (IOS, NX-OS, JunOS, EOS, Comware spellings). */
const SECRET_WORD = /\b(password|passwd|secret|key|key-string|community|passphrase|pre-shared-key|psk|authentication-key|md5|sha|auth-password|priv-password|encrypted-password|simple|cipher)\b/i

export interface LogTextMasker {
  /** A command line: hidden from a word that introduces a secret on, then every known secret by value. */
  command(text: string | null): string | null
  /** Any other text (a daemon's message): every known secret by value. */
  text(text: string | null): string | null
}

export function logTextMasker(secretValues: readonly string[]): LogTextMasker {
  const byValue = secretValueMasker(secretValues.filter((v) => v.length >= 4))
  return {
    command(command) {
      if (command === null) return null
      const m = SECRET_WORD.exec(command)
      const end = m ? m.index + m[0].length : 0
      const cut = m && command.slice(end).trim() !== '' ? `${command.slice(0, end)} ${SECRET_HIDDEN}` : command
      return byValue(cut)
    },
    text: (text) => (text === null ? null : byValue(text)),
  }
}
