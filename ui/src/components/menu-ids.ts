/**
 * The menu's sections by id, and where their open/closed state is kept. Apart from the rest of the
 * menu (no React, no DOM) so the browser tests' kit can read it too (test/kit/browser.ts).
 */
export const SECTION_IDS = ['devices', 'identities', 'deviceAdmin', 'networkAccess', 'guestAccess', 'certificates', 'configTracking', 'logs', 'administration', 'plugins'] as const
export type SectionId = (typeof SECTION_IDS)[number]

/** localStorage: `{ [section id]: true | false }`, a section the user opened or closed; one not named is closed. */
export const MENU_STATE_KEY = 'portcullis.menu'
