import type { Messages } from './en'

const ru: Messages = {
  lang: { en: 'English', ru: 'Русский', label: 'Язык' },
  app: { title: 'Portcullis', skip: 'Перейти к содержимому', signOut: 'Выйти', version: (v) => `Portcullis ${v}`, menu: 'Меню' },
  nav: { account: 'Моя учётная запись', dashboard: 'Обзор', devices: 'Устройства', deviceGroups: 'Группы устройств', plugins: 'Модули' },
  common: {
    save: 'Сохранить', cancel: 'Отмена', create: 'Создать', delete: 'Удалить', edit: 'Изменить', loading: 'Загрузка…', retry: 'Повторить',
    none: '—', yes: 'Да', no: 'Нет', search: 'Поиск', previous: 'Назад', next: 'Вперёд',
    page: (p, n) => `Страница ${p} из ${n}`, total: (n) => `Всего: ${n}`,
    rateLimited: (s) => `Слишком много попыток: повторите через ${s} с.`,
    network: 'Сервер недоступен. Проверьте соединение и повторите.',
    forbidden: 'У вас нет разрешения на это.',
    notFound: 'Такой страницы нет.',
  },
  signIn: {
    title: 'Вход', username: 'Имя пользователя', password: 'Пароль', submit: 'Войти',
    changeTitle: 'Новый пароль', changeHint: 'Перед продолжением нужно сменить пароль.',
    current: 'Текущий пароль', newPassword: 'Новый пароль', repeat: 'Повторите новый пароль', mismatch: 'Пароли не совпадают.', change: 'Сменить пароль',
    mfaTitle: 'Второй фактор', mfaHint: 'Введите 6-значный код из приложения-аутентификатора.', code: 'Код', verify: 'Подтвердить',
    restart: 'Начать заново',
  },
  dashboard: {
    title: 'Обзор', system: 'Система', readiness: 'Готовность', deploy: 'Демоны и развёртывания', failures: 'Недавние сбои',
    version: 'Версия', node: 'Узел', role: 'Роль', engine: 'База данных', uptime: 'Время работы', timezone: 'Часовой пояс', plugins: 'Модули',
    database: 'База данных', masterKey: 'Мастер-ключ', healthy: 'Исправен', degraded: 'Неисправен',
    pending: 'Есть неразвёрнутые изменения', upToDate: 'Актуально', neverDeployed: 'Не развёртывался', renderError: (c) => `Конфигурацию не удаётся построить (${c}).`,
    noDaemons: 'Модули демонов не загружены.', daemon: 'Демон', release: 'Активный выпуск', deployedAt: 'Развёрнут', status: 'Состояние',
    noFailures: 'Сбоев за последнее время нет.', failedDeploy: (d) => `Развёртывание ${d} не удалось`, at: 'Когда', what: 'Что', who: 'Кто', reason: 'Причина',
    noPermission: 'Ваши роли не позволяют это видеть.',
    uptimeValue: (s) => (s < 3600 ? `${Math.floor(s / 60)} мин` : s < 86400 ? `${Math.floor(s / 3600)} ч ${Math.floor((s % 3600) / 60)} мин` : `${Math.floor(s / 86400)} д ${Math.floor((s % 86400) / 3600)} ч`),
  },
  devices: {
    title: 'Устройства', add: 'Добавить устройство', editTitle: 'Изменение устройства', name: 'Имя', address: 'Адрес или префикс', vendor: 'Производитель', model: 'Модель',
    description: 'Описание', group: 'Группа', groupFilter: 'Отбор по группе (с подгруппами)', allGroups: 'Все группы', noGroup: 'Без группы', enabled: 'Включено', tacacsKey: 'Ключ TACACS+', radiusSecret: 'Секрет RADIUS',
    keySet: 'задан', keyKeep: 'Оставьте пустым, чтобы сохранить текущий', empty: 'Устройств пока нет.', searchPlaceholder: 'Имя, адрес, производитель…',
    deleteConfirm: (n) => `Удалить устройство ${n}?`, created: (n) => `Устройство ${n} создано.`, saved: 'Сохранено.', deleted: 'Удалено.',
    addressHint: '10.0.0.1, 10.1.0.0/16 или 2001:db8::/64',
  },
  groups: {
    title: 'Группы устройств', add: 'Добавить группу', editTitle: 'Изменение группы', name: 'Имя', description: 'Описание', parent: 'Родительская группа', top: 'Верхний уровень',
    devices: 'Устройств непосредственно в ней', devicesOf: (n) => `Показать устройства группы ${n} и её подгрупп`, subgroups: 'Подгруппы', empty: 'Групп устройств пока нет.', deleteConfirm: (n) => `Удалить группу ${n}?`,
  },
  account: {
    title: 'Моя учётная запись', profile: 'Профиль', displayName: 'Отображаемое имя', email: 'Эл. почта', groups: 'Группы', permissions: 'Разрешения', admin: 'Администратор (все разрешения)',
    mfa: 'Двухфакторная аутентификация', mfaOn: 'Включена', mfaOff: 'Выключена', mfaOnHint: 'При входе запрашивается код из приложения-аутентификатора. Если вы потеряете устройство, администратор может сбросить второй фактор.',
    mfaHint: 'Защитите учётную запись кодом из приложения-аутентификатора (TOTP) при каждом входе.', mfaStart: 'Настроить',
    mfaUnavailable: 'Двухфакторная аутентификация на этом сервере недоступна (модуль MFA не загружен).',
    scan: 'Отсканируйте код приложением-аутентификатором и введите показанный им 6-значный код.', qrAlt: 'QR-код секрета аутентификатора', manual: 'Или введите ключ вручную:',
    mfaConfirm: 'Включить',
  },
  plugins: { loadFailed: (p) => `Не удалось загрузить страницы модуля ${p}.` },
}

export default ru
