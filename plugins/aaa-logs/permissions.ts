/** Filled by the API side. */
import type { LocalizedText } from '../../sdk/index.js'

export const permissions: Record<string, LocalizedText> = {}
