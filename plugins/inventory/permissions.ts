import type { LocalizedText } from '../../sdk/index.js'

export const INVENTORY_READ = 'inventory.read'
export const INVENTORY_WRITE = 'inventory.write'

export const inventoryPermissions: Record<string, LocalizedText> = {
  [INVENTORY_READ]: {
    en: 'See network devices and device groups (never their TACACS+ keys or RADIUS secrets).',
    ru: 'Просмотр сетевых устройств и групп устройств (без ключей TACACS+ и секретов RADIUS).',
  },
  [INVENTORY_WRITE]: {
    en: 'Add, change and remove network devices and device groups, including their TACACS+ keys and RADIUS secrets.',
    ru: 'Добавление, изменение и удаление сетевых устройств и групп устройств, включая ключи TACACS+ и секреты RADIUS.',
  },
}
