/** Explanations the SDK's checks give inside a plugin's error (passed as phrases `core:reason.…`), spread into en.ts under `reason`. */
export default {
  time_window_equal: 'end {{end}} equals start {{start}}: give a window that holds for some time but not all day (00:00-24:00 is the whole day)',
  certificate_value: '{{value}}: {{why}}',
  certificate_length: 'must be 1 to 253 characters',
  certificate_ascii: 'only printable ASCII characters (letters, digits, space and punctuation) can be compared with a certificate by FreeRADIUS',
}
