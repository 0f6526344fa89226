/**
 * CHAP and MS-CHAP passwords for tac_plus-ng. Both need the password itself on
 * the server, and the daemon cannot check either against a hash (config.c
 * parse_pw reads `password chap = crypt …` as deny, silently). The platform
 * keeps the cleartext only for a user with chap_enabled whose password was set
 * while it was on (NetworkVerifiers.cleartext, sealed; RADIUS CHAP uses the
 * same), so only those users get `password chap = clear "…"` and
 * `password ms-chap = clear "…"` (the daemon's keyword is `ms-chap`; one
 * password serves MS-CHAPv1 and MS-CHAPv2, there is no switch for one of them).
 *
 * Checked against tac_plus-ng (authen.c, and logins from plugins/tacacs/client):
 * - without a clear `chap` password a CHAP login fails and the log's hint says
 *   "failed (no clear text password set)"; an MS-CHAP login fails with the plain
 *   hint "failed" (mschap_helper sets the no-cleartext hint, then overwrites it);
 * - MS-CHAP hashes the password as UTF-16LE (misc/utf16.c utf8_to_utf16le),
 *   which writes characters outside the Basic Multilingual Plane (4-byte UTF-8,
 *   emoji) as a wrong surrogate pair: such a password never passes MS-CHAP,
 *   though it passes CHAP. It gets no `ms-chap` line, and a comment says why;
 * - a quoted value holding `${NAME}` is replaced from the daemon's environment
 *   (syntax.ts): such a password is not written at all, with a comment.
 *
 * The two predicates are the plugin's contract (api.ts), so the policy test applies the very same ones.
 */
import { createHash } from 'node:crypto'
import { tacacsChapWritable, tacacsMschapWritable } from '../api.js'
import { tacComment, tacString } from './syntax.js'

/** The lines of a user block for CHAP and MS-CHAP (`indent` before each), from the kept cleartext or its absence. */
export function chapPasswordLines(cleartext: string | undefined, indent: string): string[] {
  if (cleartext === undefined) return []
  if (!tacacsChapWritable(cleartext)) return [indent + tacComment('the kept CHAP password holds "${", which tac_plus-ng would replace from its environment: CHAP and MS-CHAP are rejected')]
  const value = tacString(cleartext, 'a CHAP password')
  const out = [indent + tacComment('CHAP and MS-CHAP need the password itself (chap_enabled)'), `${indent}password chap = clear ${value}`]
  if (tacacsMschapWritable(cleartext)) out.push(`${indent}password ms-chap = clear ${value}`)
  else out.push(indent + tacComment('the password holds a character outside the Basic Multilingual Plane, which tac_plus-ng hashes wrongly for MS-CHAP: MS-CHAP is rejected'))
  return out
}

/**
 * The renderer's `cleartextIn`: one name per user block holding a clear CHAP or MS-CHAP
 * password (the sha256 of the user line and the password line), so the deploy removes older
 * releases holding one the current release no longer has (kernel/deploy/housekeeping.ts).
 */
export function tacPlusNgCleartextIn(files: { path: string; content: string }[], configFile: string): string[] {
  const file = files.find((f) => f.path === configFile)
  if (!file) return []
  const out: string[] = []
  let user = ''
  for (const line of file.content.split('\n')) {
    if (/^\s*user /.test(line)) user = line.trim()
    else if (/^\s*password (?:chap|ms-chap) = clear /.test(line)) out.push(createHash('sha256').update(`${user}\n${line.trim()}`).digest('hex'))
  }
  return out
}
