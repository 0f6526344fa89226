/** Strings of the ncm namespace for this part, spread into locales/ru.ts (keys: errors.*, and its own). */
export default { errors: {} as Record<string, string> }
