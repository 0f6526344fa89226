/**
 * A certificate whose key the server generates (for a device or a person
 * that cannot make a CSR): the same path as a CSR (csr.ts's ParsedCsr, held
 * to the template by issue.ts), from the subject and names given in the API.
 */
import { generateKeyPair, type KeyObject } from 'node:crypto'
import { promisify } from 'node:util'
import type { ParsedCsr, SanEntry } from './csr.js'
import { readRoot } from './der.js'
import { decodeName, encodeName, keyFacts, nameText, spkiOf, type NameAttribute } from './x509.js'
import { createPublicKey } from 'node:crypto'

export const LEAF_KEY_ALGORITHMS = ['ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-3072', 'RSA-4096'] as const
export type LeafKeyAlgorithm = (typeof LEAF_KEY_ALGORITHMS)[number]

const generate = promisify(generateKeyPair)

export async function generateLeafKey(a: LeafKeyAlgorithm): Promise<KeyObject> {
  const { privateKey } = a.startsWith('RSA')
    ? await generate('rsa', { modulusLength: Number(a.slice(4)) })
    : await generate('ec', { namedCurve: a === 'ECDSA-P256' ? 'prime256v1' : 'secp384r1' })
  return privateKey
}

/** The request the API's fields amount to, for the generated key. */
export function requestFor(key: KeyObject, subject: Partial<Record<NameAttribute, string>>, san: SanEntry[]): ParsedCsr {
  const subjectDer = encodeName(subject)
  const subjectParts = decodeName(readRoot(subjectDer))
  const spki = spkiOf(key)
  return { subjectDer, subjectParts, subject: nameText(subjectParts), spki, publicKey: createPublicKey(key), key: keyFacts(key)!, san }
}
