/** Strings of the ncm namespace for this part, spread into locales/en.ts (keys: errors.*, and its own). */
export default { errors: {} as Record<string, string> }
