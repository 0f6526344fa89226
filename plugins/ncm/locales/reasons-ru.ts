/** Explanations inside NCM errors (`{{reason}}`, passed as phrases), spread into locales/ru.ts under `reason`. */
export default {
  not_gzip: 'не сжато gzip',
  field: 'поле {{field}}',
}
