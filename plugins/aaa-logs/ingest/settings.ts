/** The ingester's settings (filled by the ingestion side). */
import type { SettingRef } from '../../../sdk/index.js'

export const ingestSettings: SettingRef<unknown>[] = []
