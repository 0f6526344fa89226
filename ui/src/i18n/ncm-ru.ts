/** Russian for the configuration-tracking screens: ru.ts's `ncm` (every key of ncm-en.ts). */
import type { NcmMessages } from './ncm-en'

const ncm: NcmMessages = {
  nav: { collectors: 'Сборщики конфигураций', devices: 'История конфигураций', compliance: 'Соответствие конфигураций', setup: 'Настройка сбора конфигураций' },
  collectors: 'Сборщики конфигураций',
  collectorsHint: 'Сборщик работает рядом с устройствами, забирает их текущие конфигурации по SSH и присылает сюда, подписывая запросы своим ключом.',
  add: 'Добавить сборщик', name: 'Имя', description: 'Описание', state: 'Состояние', lastContact: 'Последняя связь', release: 'Версия', contract: 'Контракт', address: 'Адрес',
  states: { pending: 'ждёт регистрации', active: 'активен', revoked: 'отозван' },
  contracts: { unknown: 'ещё не виден', match: 'совпадает', mismatch: 'не совпадает' },
  contractSeen: (s: string) => `Сборщик говорит по контракту ${s}: обновите его до версии этого ядра. До тех пор от него ничего не сохраняется.`,
  refused: (code: string) => `Последний отказ: ${code}`,
  deleted: 'удалён', empty: 'Сборщиков пока нет.',
  newToken: 'Новый токен', revoke: 'Отозвать', revokeQuestion: (n: string) => `Отозвать сборщик ${n}? Его следующий запрос будет отклонён, больше он ничего не заберёт.`,
  deleteQuestion: (n: string) => `Удалить сборщик ${n}? С этого момента его запросы отклоняются.`,
  tokenTitle: 'Токен регистрации', tokenOnce: 'Токен показывается один раз и действует один раз, до указанного времени. Выполните на хосте сборщика:',
  tokenExpires: (w: string) => `Действует до ${w}.`, copy: 'Копировать', copied: 'Скопировано', done: 'Готово',

  devices: 'История конфигураций', devicesHint: 'Устройства, чьи текущие конфигурации забираются по расписанию, и поиск по их последним конфигурациям.',
  search: 'Поиск по последним конфигурациям', searchPlaceholder: 'ip http server', matchMode: 'Совпадение', matchModes: { contains: 'содержит', line: 'строка целиком' },
  searchResults: (n: number) => `Совпадений на устройствах: ${n}`, matches: 'Совпавшие строки', matchCount: 'Совпадений',
  device: 'Устройство', host: 'Хост', lastFetch: 'Последний сбор', status: 'Статус', noVersion: 'версий ещё нет',
  statuses: { ok: 'успешно', timeout: 'истекло время', connect_failed: 'нет соединения', auth_failed: 'вход отклонён', host_key_mismatch: 'ключ хоста сменился', too_large: 'слишком большая', protocol_error: 'ошибка протокола', no_host: 'нет одного адреса' },
  emptyDevices: 'Ни одно устройство пока не отслеживается: добавьте расписание для группы устройств.',
  fetchNow: 'Забрать сейчас', fetchAsked: 'Сборщик заберёт конфигурацию сейчас.',

  history: (n: string) => `История конфигурации: ${n}`, versions: 'Версии', fetched: 'Получена', seen: 'Последний раз видели', seenCount: 'Раз', changes: 'Изменения',
  from: 'С', to: 'По', diff: 'Различия', noDiff: 'Выберите две разные версии для сравнения.', sameText: 'Версии совпадают.',
  secretsOnly: 'Изменились только секреты (здесь они скрыты).', truncated: 'Различия слишком длинные: показано начало.',
  added: (n: number) => `+${n}`, removed: (n: number) => `−${n}`,
  whoChanged: 'Кто изменил', whoHint: 'Команды TACACS+ на этом устройстве между предыдущим сбором и сбором, который нашёл изменение.',
  noLogs: 'Журналы AAA на этом сервере недоступны.', noLogsPermission: 'Для чтения журналов AAA нужно право aaa-logs.read.',
  noCommands: 'В этом интервале команд TACACS+ не записано.', logsTruncated: 'Записей больше: показаны только первые.',
  when: 'Когда', user: 'Пользователь', command: 'Команда', kind: 'Запись', inDiff: 'В различиях', matchesDiff: 'совпадает с изменённой строкой',
  showConfig: 'Показать эту версию', hideConfig: 'Скрыть конфигурацию', configOf: (w: string) => `Конфигурация, полученная ${w}`,

  compliance: 'Соответствие конфигураций', rules: 'Правила', results: 'Результаты', addRule: 'Добавить правило', editRule: 'Изменить правило',
  requirement: 'Требование', requirements: { must_contain: 'должна содержать', must_not_contain: 'не должна содержать' },
  match: 'Сравнение', matchTypes: { literal: 'строка целиком', regex: 'безопасное регулярное выражение' },
  pattern: 'Строка или шаблон', group: 'Группа устройств', allDevices: 'Все устройства', notify: 'Письмо о новом нарушении', enabled: 'Включено',
  rulesNeedReveal: 'Для управления правилами нужно ещё право ncm.reveal: правила читают конфигурации вместе с секретами.',
  emptyRules: 'Правил пока нет.', emptyResults: 'Нет результатов для этого фильтра.', statusFilter: 'Статус', anyStatus: 'Любой статус',
  resultStatuses: { pass: 'соответствует', fail: 'нарушение' }, evidence: 'Доказательство', since: 'С момента', rule: 'Правило',
  deleteRuleQuestion: (n: string) => `Удалить правило ${n}?`, evaluating: 'проверяется',

  setup: 'Настройка сбора конфигураций', schedules: 'Расписания', credentials: 'Учётные данные', profiles: 'Профили команд',
  schedulesHint: 'Каждую группу устройств с расписанием опрашивает один сборщик с одними учётными данными и одним профилем команд.',
  addSchedule: 'Добавить расписание', addCredential: 'Добавить учётные данные', addProfile: 'Добавить профиль', collector: 'Сборщик', credential: 'Учётные данные', profile: 'Профиль',
  interval: 'Каждые (минут)', username: 'Имя пользователя', auth: 'Вход по', auths: { password: 'паролю', private_key: 'закрытому ключу' },
  password: 'Пароль', privateKey: 'Закрытый ключ (OpenSSH или PEM)', passphrase: 'Пароль ключа', enableSecret: 'Пароль enable', secretSet: 'задан', secretNotSet: 'не задан',
  credentialsHint: 'Учётные данные хранятся зашифрованными и передаются сборщику только внутри задания, зашифрованными на его ключ. Повторно они не показываются.',
  builtin: 'встроенный', mode: 'Режим', modes: { shell: 'интерактивная оболочка', exec: 'одна команда (exec)' }, prompt: 'Приглашение (безопасное регулярное выражение)',
  preCommands: 'Сначала команды (по одной в строке)', commandLine: 'Команда', pagerPattern: 'Приглашение пейджера (безопасное регулярное выражение)', stripLines: 'Отбрасываемые строки (безопасные регулярные выражения, по одному в строке)',
  secretLines: 'Строки с секретами (безопасные регулярные выражения, по одному в строке)', emptySchedules: 'Расписаний пока нет.', emptyCredentials: 'Учётных данных пока нет.',
  deleteQuestion2: (n: string) => `Удалить ${n}?`,
}

export default ncm
