/** Russian for reasons-en.ts (every key), spread into ru.ts under `reason`. */
export default {
  time_window_equal: 'конец {{end}} совпадает с началом {{start}}: задайте окно, которое действует какое-то время, но не весь день (00:00-24:00 — весь день)',
  certificate_value: '{{value}}: {{why}}',
  certificate_length: 'должно быть от 1 до 253 символов',
  certificate_ascii: 'FreeRADIUS может сравнивать с сертификатом только печатаемые символы ASCII (буквы, цифры, пробел и знаки препинания)',
}
