/**
 * English for the browser's check of a form (api/rules.ts) and the help under
 * its inputs: the same sentences the server answers (kernel/locales), so an
 * error reads alike whichever side found it. Also en.ts's `fields`.
 */
const chars = (n: number) => (n === 1 ? '1 character' : `${n} characters`)
const items = (n: number) => (n === 1 ? '1 item' : `${n} items`)

const fields = {
  required: 'Required.',
  empty: 'Must not be empty.',
  type: (type: string) => `Must be of type ${type}.`,
  minLength: (n: number) => `Must be at least ${chars(n)} long.`,
  maxLength: (n: number) => `Must be at most ${chars(n)} long.`,
  minimum: (n: number) => `Must be at least ${n}.`,
  maximum: (n: number) => `Must be at most ${n}.`,
  greater: (n: number) => `Must be greater than ${n}.`,
  less: (n: number) => `Must be less than ${n}.`,
  minItems: (n: number) => `Must hold at least ${items(n)}.`,
  maxItems: (n: number) => `Must hold at most ${items(n)}.`,
  enum: (allowed: string) => `Must be one of: ${allowed}.`,
  allowed: (words: string) => `Allowed: ${words}.`,
  pattern: (pattern: string) => `Must match the pattern ${pattern}.`,
  anyOf: 'Does not match any allowed form.',
  /** The length part of an input's help: "up to 64 characters", "8 to 64 characters". */
  length: (min: number, max: number | undefined) =>
    max === undefined ? (min > 1 ? `at least ${chars(min)}` : '') : min > 1 && min === max ? `exactly ${chars(max)}` : min > 1 ? `${min} to ${max} characters` : `up to ${chars(max)}`,
  capital: (s: string) => s.charAt(0).toUpperCase() + s.slice(1),
}

export type FieldMessages = typeof fields
export default fields
