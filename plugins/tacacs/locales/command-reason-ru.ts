/** Russian for command-reason-en.ts (every key), spread into locales/ru.ts under `command_reason`. */
export default {
  control: 'В командной строке есть управляющие символы: профиль всегда запрещает такую строку.',
  exec: 'Пустая командная строка запускает оболочку exec, которую профиль разрешает на уровне привилегий {{level}}.',
  entry_permits: 'Команда {{number}} («{{command}}»{{details}}) набора команд «{{set}}» совпадает и разрешает строку.',
  entry_denies: 'Команда {{number}} («{{command}}»{{details}}) набора команд «{{set}}» совпадает и запрещает строку.',
  any_arguments: ', любые аргументы',
  arguments: ', аргументы {{rules}}',
  arguments_or: ' или ',
  at_level: ', на уровне привилегий {{level}} и выше',
  default_permits: 'Ни одна команда наборов профиля не совпала; действие профиля по умолчанию разрешает строку.',
  default_denies: 'Ни одна команда наборов профиля не совпала; действие профиля по умолчанию запрещает строку.',
}
