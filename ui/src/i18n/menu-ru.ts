/** Russian for the grouped menu and the quick search: ru.ts's `menu` (every key of menu-en.ts). */
import type { MenuMessages } from './menu-en'

const menu: MenuMessages = {
  sections: {
    devices: 'Сетевые устройства', identities: 'Пользователи и роли', deviceAdmin: 'Администрирование устройств', networkAccess: 'Сетевой доступ (NAC)',
    guestAccess: 'Гостевой доступ', certificates: 'Сертификаты', configTracking: 'Отслеживание конфигураций', logs: 'Журналы и аудит',
    administration: 'Администрирование', plugins: 'Модули',
  },
  search: {
    open: 'Поиск', title: 'Быстрый поиск', label: 'Поиск экранов и записей',
    placeholder: 'Экран, имя или адрес устройства, пользователь…', hint: '↑ ↓ — выбор, Enter — открыть, Esc — закрыть',
    screens: 'Экраны', records: 'Записи', searching: 'Поиск…', nothing: 'Ничего не найдено.',
    kinds: { device: 'Устройство', user: 'Пользователь', endpoint: 'Оконечное устройство', deviceGroup: 'Группа устройств', userGroup: 'Группа пользователей' },
  },
}

export default menu
