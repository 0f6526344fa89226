/** Русские названия значений, которые сервер присылает кодами (see server-values-en.ts). */
import type { ServerValueMessages } from './server-values-en'

const serverValues: ServerValueMessages = {
  database: { ok: 'доступна', unreachable: 'недоступна' },
  masterKey: { loaded: 'загружен', missing: 'не загружен' },
  role: { primary: 'основной', replica: 'реплика для чтения' },
}

export default serverValues
