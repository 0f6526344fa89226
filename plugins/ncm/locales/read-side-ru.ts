/** Strings of the ncm namespace for this part, spread into locales/ru.ts (keys: errors.*, and its own). */
export default {
  errors: {
    version_not_found: 'У этого устройства нет сохранённой версии конфигурации с таким идентификатором (возможно, она удалена вместе с историей устройства).',
  } as Record<string, string>,
}
