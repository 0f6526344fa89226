/** Compliance's strings of the ncm namespace, spread into locales/en.ts. */
export default {
  errors: {
    rule_name_taken: 'A compliance rule named "{{name}}" already exists.',
    reveal_required: 'Managing compliance rules also needs the permission ncm.reveal: a rule decides on the configurations with their secrets.',
    rule_regex: {
      slash: 'The pattern must not contain "/".',
      anchor: 'The pattern is matched against a whole line (leading and trailing spaces removed): leave out ^ and $.',
      lookbehind: 'Lookbehind ((?<= and (?<!) is not allowed.',
      named_group: 'Named groups are not allowed; use (…) or (?:…).',
      group_syntax: 'Only (…), (?:…), (?=…) and (?!…) groups are allowed.',
      backreference: 'Backreferences (\\1, \\k<…>) are not allowed.',
      unicode_property: 'Unicode property escapes (\\p{…}, \\P{…}) are not allowed.',
      escape: 'The pattern holds an escape outside the allowed set: \\d \\D \\w \\W \\s \\S \\b \\B \\t \\n \\r \\f \\xHH, and a backslash before punctuation.',
      class: 'A character class is malformed: write [ and ] inside a class as \\[ and \\], make ranges between single characters, and do not leave it empty.',
      quantifier: 'A quantifier repeats nothing, is possessive or doubled, exceeds 1000, or is a literal brace (write \\{ and \\}).',
      nested_quantifier: 'Repetition inside repetition, such as (a+)+ or (a*)*, risks catastrophic backtracking.',
      ambiguous_alternation: 'A repeated alternation whose branches can start with the same character, such as (a|ab)*, risks catastrophic backtracking.',
      adjacent_repeats: 'Two unbounded repetitions side by side that can match the same characters, such as \\d+\\d*, risk catastrophic backtracking.',
      too_ambiguous: 'More than one pair of overlapping wildcards, such as .*a.*b.*, risks catastrophic backtracking: narrow them ([^ ]* instead of .*).',
      syntax: 'The pattern is not a valid regular expression.',
    },
  },
  compliance_mail: {
    subject: 'Compliance: {{device}} violates {{count}} rule(s)',
    body: 'The configuration of {{device}} fetched at {{fetched_at}} (version {{version}}) newly violates these compliance rules:\n\n{{rules}}\n\nSecrets in the lines shown are masked. The report: /ncm/compliance in the console, or GET /api/v1/ncm/compliance?status=fail.',
    must_contain: 'must contain',
    must_not_contain: 'must not contain',
    nothing_found: '(no line matches)',
  },
}
