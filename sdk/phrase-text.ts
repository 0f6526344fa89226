/**
 * Phrases carried inside text, said later in the reader's language. An evaluator that builds its
 * reasons by joining sentences (a refusal inside "login refused: …", a wider client appended in
 * parentheses) is given `PHRASE_SAY` instead of a language: each sentence becomes its key and values,
 * in-band, and the joins stay as they are. Whoever answers the reader says the text with the reader's
 * `req.t` (`sayPhrases`): the change impact replays a million requests once, keeps a few hundred
 * changes, and words only those, in the language of whoever asked.
 *
 * A phrase is `\u0001` + JSON `[key, values]` + `\u0002`; JSON escapes those two characters inside
 * it, so a phrase nested in a value never ends its parent. Text without phrases (an English reason
 * written before phrases existed) is said as it is.
 */
import type { Say } from './say.js'

const OPEN = '\u0001'
const CLOSE = '\u0002'

/** A `Say` that keeps the key and values for later (`sayPhrases`) instead of words. */
export const PHRASE_SAY: Say = (key, vars) => OPEN + JSON.stringify(vars === undefined ? [key] : [key, vars]) + CLOSE

/** True when `text` holds at least one phrase still to be said. */
export const hasPhrases = (text: string): boolean => text.includes(OPEN)

/** `text` with each phrase said by `say` (values that hold phrases said first); other text as it is. */
export function sayPhrases(text: string, say: Say): string {
  if (!text.includes(OPEN)) return text
  let out = ''
  let at = 0
  for (let open = text.indexOf(OPEN); open >= 0; open = text.indexOf(OPEN, at)) {
    const close = text.indexOf(CLOSE, open)
    if (close < 0) break
    out += text.slice(at, open)
    out += sayOne(text.slice(open + 1, close), say)
    at = close + 1
  }
  return out + text.slice(at)
}

function sayOne(json: string, say: Say): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    return json
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'string') return json
  const vars = parsed[1] as Record<string, unknown> | undefined
  if (!vars || typeof vars !== 'object') return say(parsed[0])
  const said: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(vars)) said[k] = typeof v === 'string' ? sayPhrases(v, say) : v
  return say(parsed[0], said)
}
