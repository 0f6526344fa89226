/** Strings of the ncm namespace for this part, spread into locales/en.ts (keys: errors.*, and its own). */
export default {
  errors: {
    version_not_found: 'This device has no stored configuration version with that id (it may have been deleted with the device\'s history).',
  } as Record<string, string>,
}
