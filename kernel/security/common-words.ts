/**
 * @zxcvbn-ts/language-common's word lists (49,233 breached passwords, the
 * diceware list), loaded at their first use: a start that checks no password
 * and no passphrase does not pay the ~20 ms of reading and decompressing them.
 */
import { createRequire } from 'node:module'

type Lists = { dictionary: Record<string, string[]> }

const require = createRequire(import.meta.url)
let lists: Lists | null = null

export const commonWords = (name: 'passwords-common' | 'diceware-common'): string[] =>
  (lists ??= require('@zxcvbn-ts/language-common') as Lists).dictionary[name] ?? []
