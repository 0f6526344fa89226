/** Why a command line is permitted or denied (services/command-match.ts `reason`), spread into locales/en.ts under `command_reason`. */
export default {
  control: 'The command line holds control characters, which the profile always denies.',
  exec: 'An empty command line starts an exec shell, which the profile permits at privilege level {{level}}.',
  entry_permits: 'Command {{number}} ("{{command}}"{{details}}) of command set "{{set}}" matches and permits it.',
  entry_denies: 'Command {{number}} ("{{command}}"{{details}}) of command set "{{set}}" matches and denies it.',
  any_arguments: ', any arguments',
  arguments: ', arguments {{rules}}',
  arguments_or: ' or ',
  at_level: ', at privilege level {{level}} or above',
  default_permits: 'No command of the profile\'s command sets matches; the profile\'s default action permits it.',
  default_denies: 'No command of the profile\'s command sets matches; the profile\'s default action denies it.',
}
