/**
 * PCRE2 itself, as tac_plus-ng calls it, for tests: a ten-line C program
 * compiled against libpcre2-8 on first use (the same library and headers the
 * tac_plus-ng build needs), which compiles a pattern with the daemon's flags
 * (`PCRE2_MULTILINE | PCRE2_CASELESS | PCRE2_UTF`, mavis_parse.c and
 * config.c under `regex-match-case = no`) and matches each subject by its
 * byte length, as the daemon does. GNU grep -P is no stand-in: it reads
 * lines, so no subject can hold a line feed or NUL, and newer versions add
 * PCRE2_UCP, which changes `\w`.
 *
 * `pcre2()` is null when no C compiler or no libpcre2-8 headers are there;
 * the tests that need it are then pending and say why.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const SOURCE = `#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* argv[1]: the pattern. stdin: one subject a line, hex. stdout: per subject 1 (match), 0 (none) or the error code. */
int main(int argc, char **argv) {
  int err; PCRE2_SIZE off;
  if (argc != 2) return 2;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR) argv[1], PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE | PCRE2_CASELESS | PCRE2_UTF, &err, &off, NULL);
  if (!re) { printf("compile error %d at %zu\\n", err, (size_t) off); return 3; }
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
  static char line[1 << 16]; static unsigned char subject[1 << 15];
  while (fgets(line, sizeof line, stdin)) {
    size_t n = strcspn(line, "\\n") / 2;
    for (size_t i = 0; i < n; i++) { unsigned int b; sscanf(line + 2 * i, "%2x", &b); subject[i] = (unsigned char) b; }
    int rc = pcre2_match(re, subject, n, 0, 0, md, NULL);
    printf("%d\\n", rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : rc);
  }
  return 0;
}
`

let binary: string | null | undefined
/** Why `pcre2()` is null, said once by the tests that skip. */
export let PCRE2_SKIP = ''

/** $CC, else the first of cc, clang, gcc on the PATH: CI builds tac_plus-ng with clang, which is not always `cc`. */
function compiler(): string {
  if (process.env.CC) return process.env.CC
  for (const c of ['cc', 'clang', 'gcc']) if (spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0) return c
  return 'cc'
}

function build(): string | null {
  const dir = path.join(os.tmpdir(), `portcullis-pcre2-${createHash('sha256').update(SOURCE).digest('hex').slice(0, 12)}`)
  const bin = path.join(dir, 'pcre2-match')
  if (existsSync(bin)) return bin
  mkdirSync(dir, { recursive: true })
  const src = path.join(dir, 'pcre2-match.c')
  writeFileSync(src, SOURCE)
  try {
    execFileSync(compiler(), ['-O1', '-o', `${bin}.tmp`, src, '-lpcre2-8'], { stdio: ['ignore', 'pipe', 'pipe'] })
    renameSync(`${bin}.tmp`, bin) // whole, or not there: a parallel run never sees half a binary
    return bin
  } catch (e) {
    PCRE2_SKIP = `no PCRE2 to test against: building a matcher with cc and libpcre2-8 failed (${(e as Error).message.split('\n')[0]})`
    return null
  }
}

export interface Pcre2 {
  /** For each subject: true when the pattern matches it, as tac_plus-ng's `cmd =~ /…/` would. Throws when the pattern does not compile or PCRE2 reports an error. */
  match(pattern: string, subjects: readonly (string | Buffer)[]): boolean[]
  /** The raw result per subject: 1, 0, or PCRE2's negative error code (a UTF-8 error for bytes that are not UTF-8). */
  results(pattern: string, subjects: readonly (string | Buffer)[]): number[]
}

export function pcre2(): Pcre2 | null {
  if (binary === undefined) binary = build()
  if (!binary) return null
  const bin = binary
  const results = (pattern: string, subjects: readonly (string | Buffer)[]): number[] => {
    const input = subjects.map((s) => (Buffer.isBuffer(s) ? s : Buffer.from(s, 'utf8')).toString('hex')).join('\n') + '\n'
    let out: string
    try {
      out = execFileSync(bin, [pattern], { input, encoding: 'utf8', maxBuffer: 1 << 26 })
    } catch (e) {
      throw new Error(`PCRE2 refuses /${pattern}/: ${String((e as { stdout?: string }).stdout ?? e)}`)
    }
    return out.trim().split('\n').map(Number)
  }
  return {
    results,
    match(pattern, subjects) {
      return results(pattern, subjects).map((r, i) => {
        if (r < 0) throw new Error(`PCRE2 error ${r} for /${pattern}/ on ${JSON.stringify(String(subjects[i]))}`)
        return r === 1
      })
    },
  }
}
