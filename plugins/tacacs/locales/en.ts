import commandReason from './command-reason-en.js'

export default {
  errors: {
    command_set_name_taken: 'A command set named "{{name}}" already exists.',
    // Without a number count (a race seen as "1+"), the plain key.
    command_set_in_use: 'The command set is used by {{count}} TACACS+ profiles: {{profiles}}. Remove it from them first.',
    command_set_in_use_one: 'The command set is used by {{count}} TACACS+ profile: {{profiles}}. Remove it from that profile first.',
    command_set_in_use_other: 'The command set is used by {{count}} TACACS+ profiles: {{profiles}}. Remove it from them first.',
    profile_name_taken: 'A TACACS+ profile named "{{name}}" already exists.',
    command_set_not_found: 'No command set has the id {{id}}.',
    shell_attribute_reserved: 'The attribute "{{name}}" belongs to the request itself and cannot be set.',
    shell_attribute_priv_lvl: 'The privilege level is set with privilege_level, not as a shell attribute.',
    attribute_too_long: 'The pair name=value takes {{bytes}} bytes; one TACACS+ argument holds at most {{max}}.',
    service_shell: 'Service shell is set with privilege_level, shell_attributes and the command sets, not in services.',
    service_duplicate: 'The service "{{service}}" is listed twice.',
    enable_secret_required: 'enable_mode "secret" needs an enable_secret: this profile has none stored yet.',
    enable_secret_unused: 'An enable_secret is only kept with enable_mode "secret".',
    regex: {
      slash: 'The pattern must not contain "/": tac_plus-ng delimits patterns with it. Match a slash with \\x2f.',
      anchor: 'The pattern is matched against the arguments as a whole: leave out ^ and $.',
      lookbehind: 'Lookbehind ((?<= and (?<!) is not allowed.',
      named_group: 'Named groups are not allowed; use (…) or (?:…).',
      group_syntax: 'Only (…), (?:…), (?=…) and (?!…) groups are allowed.',
      backreference: 'Backreferences (\\1, \\k<…>) are not allowed.',
      unicode_property: 'Unicode property escapes (\\p{…}, \\P{…}) are not allowed.',
      escape: 'The pattern holds an escape that PCRE and JavaScript read differently. Allowed: \\d \\D \\w \\W \\s \\S \\b \\B \\t \\n \\r \\f \\xHH, and a backslash before punctuation.',
      class: 'A character class is malformed or read differently by PCRE and JavaScript: write [ and ] inside a class as \\[ and \\], make ranges between single characters, and do not leave it empty.',
      quantifier: 'A quantifier repeats nothing, is possessive or doubled, exceeds 1000, or is a literal brace (write \\{ and \\}).',
      nested_quantifier: 'Repetition inside repetition, such as (a+)+ or (a*)*, risks catastrophic backtracking.',
      ambiguous_alternation: 'A repeated alternation whose branches can start with the same character, such as (a|ab)*, risks catastrophic backtracking.',
      adjacent_repeats: 'Two unbounded repetitions side by side that can match the same characters, such as \\d+\\d*, risk catastrophic backtracking.',
      too_ambiguous: 'More than one pair of overlapping wildcards, such as .*a.*b.*, risks catastrophic backtracking: narrow them ([^ ]* instead of .*).',
      syntax: 'The pattern is not a valid regular expression.',
    },
  },
  command_reason: commandReason,
}
