/**
 * The lexical rules of a tac_plus-ng configuration file for values that are
 * not names (keys, hashes, addresses, paths, log formats). Names of platform
 * objects go through names.ts, which the profile and rule renderers share.
 *
 * Checked against the parser (mavis/mavis_parse.c) and `tac_plus-ng -P`:
 * - A double-quoted string is one token, never a keyword, whatever it holds
 *   (`"user"`, `"permit"`, `"a b"`). Inside it `\\` and `\"` escape, `\ooo` is
 *   an octal byte (up to three digits), `#` does not start a comment.
 * - After the escapes, every `${NAME}` in a quoted string is replaced by the
 *   daemon's environment variable NAME when that is set (left as is when not).
 *   No escape prevents it, so a string holding `${` cannot be rendered
 *   faithfully: `tacString` refuses it.
 * - A NUL byte ends the C string: refused too.
 */

export class TacPlusNgRenderError extends Error {
  override name = 'TacPlusNgRenderError'
}

/**
 * A tac_plus-ng double-quoted string whose parsed value is exactly `value`.
 * `what` names the value in the error (never the value itself: it may be a key).
 * `variables: true` lets `${…}` through, for the renderer's own constant
 * templates (log formats), never for data.
 */
export function tacString(value: string, what = 'a value', o: { variables?: boolean } = {}): string {
  if (value.includes('\0')) throw new TacPlusNgRenderError(`${what} holds a NUL byte, which tac_plus-ng cannot read`)
  if (!o.variables && value.includes('${')) throw new TacPlusNgRenderError(`${what} holds "\${", which tac_plus-ng would replace from its environment`)
  let out = '"'
  for (const ch of value) {
    const c = ch.codePointAt(0)!
    if (ch === '\\') out += '\\\\'
    else if (ch === '"') out += '\\"'
    // Control characters as three-digit octal, so a following digit is never taken into the escape.
    else if (c < 0x20 || c === 0x7f) out += '\\' + c.toString(8).padStart(3, '0')
    else out += ch
  }
  return out + '"'
}

/**
 * A `#` comment holding free text: one line, so the text can never reach the
 * next line and become configuration.
 */
export const tacComment = (text: string): string => '# ' + text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')

/** Byte-wise order, independent of locale and ICU: the renderers sort with it. */
export const byteOrder = (a: string, b: string): number => {
  const x = Buffer.from(a, 'utf8')
  const y = Buffer.from(b, 'utf8')
  return Buffer.compare(x, y)
}

/** Indent every non-empty line of a block of text. */
export const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map((l) => (l.length ? by + l : l))
    .join('\n')

/**
 * The `script out` line of the first MAVIS module (the last to see the answer, after the lockout's
 * count): a backend error (the platform or directory unreachable, an empty password the LDAP backend
 * calls "Password not set.") becomes a refusal. tac_plus-ng answers an ERR with ERROR to an ASCII
 * login (FAIL to PAP), and a NAS with `group tacacs+ local` takes ERROR for "server down" and lets
 * its local accounts in. Not counted by the lockout: its count saw ERR. docs/tac_plus-ng.md.
 */
export const MAVIS_NO_ERROR = 'if ($RESULT == "ERR") set $RESULT = "NAK"'
