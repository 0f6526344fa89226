import type { LocalizedText } from '../../sdk/index.js'

export const RADIUS_READ = 'radius.read'
export const RADIUS_WRITE = 'radius.write'

export const radiusPermissions: Record<string, LocalizedText> = {
  [RADIUS_READ]: {
    en: 'See RADIUS profiles and the supported reply attributes.',
    ru: 'Просмотр профилей RADIUS и поддерживаемых атрибутов ответа.',
  },
  [RADIUS_WRITE]: {
    en: 'Create, change and delete RADIUS profiles.',
    ru: 'Создание, изменение и удаление профилей RADIUS.',
  },
}
