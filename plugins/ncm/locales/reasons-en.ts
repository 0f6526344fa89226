/** Explanations inside NCM errors (`{{reason}}`, passed as phrases), spread into locales/en.ts under `reason`. */
export default {
  not_gzip: 'not gzip',
  field: 'field {{field}}',
}
