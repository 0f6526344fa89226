/**
 * The built-in profiles the transcripts run: the core's own list (plugins/ncm/services/profiles/builtin.ts),
 * as the core hands them to a collector, so a change to a built-in is tested against its vendor's fake here.
 */
import { BUILTIN_PROFILES } from '../../plugins/ncm/services/profiles/builtin.js'
import { collectorProfile } from '../../plugins/ncm/services/profiles/store.js'
import type { CollectorProfile } from '../../sdk/collector-protocol.js'

export const BUILTIN_FOR_TESTS: { key: string; profile: CollectorProfile }[] = BUILTIN_PROFILES.map((p) => ({ key: p.name, profile: collectorProfile(p) }))
