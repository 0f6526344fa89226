/**
 * What the core does to a fetched text before storing it (design31 §6): drop the profile's strip
 * lines and normalize line ends (so timestamps and uptime do not make new versions), then, for
 * readers, hide the rest of each secret line and every written form of the known secrets (the
 * credential's, the device's TACACS+ key and RADIUS secret).
 */
import { compileSafeRegex } from '../../../sdk/safe-regex.js'
import { secretValueMasker } from '../../../sdk/index.js'

export const SECRET_HIDDEN = '<secret hidden>'
/** The checker allows O(n²) patterns: only a line's first characters are tested. */
const TESTED_CHARS = 4096

const compileAll = (patterns: readonly string[], anchor: 'line' | 'prefix'): RegExp[] => patterns.map((p) => compileSafeRegex(p, anchor, { allowSlash: true }))

/** The stripped text: `\n` line ends, no trailing blanks, no stripped line, no blank lines at either end; ends with `\n` unless empty. */
export function normalizeConfig(output: string, stripLines: readonly string[]): string {
  const strip = compileAll(stripLines, 'line')
  const kept: string[] = []
  for (const raw of output.split(/\r?\n|\r/)) {
    const line = raw.replace(/[ \t]+$/, '')
    const tested = line.trim().slice(0, TESTED_CHARS)
    if (strip.some((re) => re.test(tested))) continue
    kept.push(line)
  }
  let start = 0
  let end = kept.length
  while (start < end && kept[start] === '') start++
  while (end > start && kept[end - 1] === '') end--
  return end > start ? kept.slice(start, end).join('\n') + '\n' : ''
}

/** The masked copy readers get. */
export function maskConfig(raw: string, secretLines: readonly string[], secretValues: readonly string[]): string {
  const secret = compileAll(secretLines, 'prefix')
  const values = secretValueMasker(secretValues.filter((v) => v !== ""))
  const lines = raw.split('\n').map((line) => {
    const indent = /^\s*/.exec(line)![0]
    const rest = line.slice(indent.length)
    for (const re of secret) {
      const m = re.exec(rest.slice(0, TESTED_CHARS))
      if (m && m[0].length < rest.length) return `${indent}${m[0].trimEnd()} ${SECRET_HIDDEN}`
    }
    return line
  })
  return values(lines.join('\n'))
}

/** Lines added and removed between two texts, counted as multisets (the read side's diff shows where). */
export function lineChanges(before: string | null, after: string): { added: number; removed: number } {
  const count = new Map<string, number>()
  if (before) for (const l of before.split('\n')) count.set(l, (count.get(l) ?? 0) + 1)
  let added = 0
  for (const l of after.split('\n')) {
    const n = count.get(l) ?? 0
    if (n > 0) count.set(l, n - 1)
    else added++
  }
  let removed = 0
  for (const n of count.values()) removed += n
  return { added, removed }
}
