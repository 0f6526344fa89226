/** An explanation inside a PKI error, as a phrase (locales reasons-en.ts): said in the caller's language with the error. */
import { phrase, type Phrase } from '../../../sdk/index.js'

export type { Phrase }
export const why = (key: string, vars: Record<string, unknown> = {}): Phrase => phrase(`pki:reason.${key}`, vars)
