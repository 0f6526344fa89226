/** Formatting shared by the pages. */

/** A timestamp in the screen's language, or a dash. */
export const when = (iso: string | null | undefined, lang: string) => (iso ? new Date(iso).toLocaleString(lang) : '—')
