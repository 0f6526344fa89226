/**
 * What each `pattern` of a request body allows, in words (English and
 * Russian). One table for every pattern the routes use: the server's 422 for a
 * pattern failure says what is allowed from it, and the console's build copies
 * the words beside each field's rules (ui/scripts/openapi.ts) to show them as
 * help under the input before anyone fails. Keyed by the pattern's source as
 * the schema holds it, so a field is described by its schema, never by hand in
 * a form. test/kernel/pattern-words.test.ts walks the OpenAPI document: a
 * pattern used in a request body without words here fails it.
 *
 * Lengths are not in the words: they come from the field's minLength/maxLength.
 */
import { NAME_PATTERN, TEXT_PATTERN } from '../../sdk/index.js'

export interface PatternWords {
  /** i18n key under `core:patterns.` */
  id: string
  en: string
  ru: string
}

const r = String.raw
const PRINTABLE = { en: 'printable ASCII characters (spaces included)', ru: 'печатные символы ASCII (пробел допустим)' }
const SLUG = { en: 'lower-case Latin letters, digits and -, starting with a letter or digit', ru: 'строчные латинские буквы, цифры и -, первый символ — буква или цифра' }

const TABLE: [pattern: string, id: string, words: { en: string; ru: string }][] = [
  [NAME_PATTERN, 'name', { en: 'any characters on one line, not only spaces; no control characters or invisible direction marks', ru: 'любые символы в одну строку, не только пробелы; без управляющих символов и невидимых знаков направления текста' }],
  [TEXT_PATTERN, 'text', { en: 'any text; no control characters (tab and line break are allowed) or text-direction overrides', ru: 'любой текст; без управляющих символов (табуляция и перевод строки допустимы) и символов смены направления текста' }],
  [r`^[A-Za-z0-9][A-Za-z0-9._-]*$`, 'config_name', { en: 'Latin letters, digits and . _ -, starting with a letter or digit; no spaces', ru: 'латинские буквы, цифры и . _ -, первый символ — буква или цифра; без пробелов' }],
  [r`^[A-Za-z0-9._@-]+$`, 'username', { en: 'Latin letters, digits and . _ @ -; no spaces', ru: 'латинские буквы, цифры и . _ @ -; без пробелов' }],
  [r`^[a-z][a-z0-9_-]*$`, 'lower_ident', { en: 'lower-case Latin letters, digits, _ and -, starting with a letter', ru: 'строчные латинские буквы, цифры, _ и -, первый символ — буква' }],
  [r`^(?:19[7-9][0-9]|20[0-9][0-9]|210[0-5])-`, 'year', { en: 'a date and time with a year from 1970 to 2105', ru: 'дата и время с годом от 1970 до 2105' }],
  [r`^[A-Za-z][A-Za-z0-9-]*=[^\u0000-\u001f\u007f"\\%$]+$`, 'dn', { en: 'a distinguished name such as CN=Network Admins,OU=Groups,DC=example,DC=com; no control characters, " \\ % or $', ru: 'различающееся имя, например CN=Network Admins,OU=Groups,DC=example,DC=com; без управляющих символов, " \\ % и $' }],
  [r`^[!#%-\[\]-~]([ !#%-\[\]-~]*[!#%-\[\]-~])?$`, 'shared_secret', { en: 'printable ASCII characters except " $ \\; spaces only between other characters', ru: 'печатные символы ASCII, кроме " $ \\; пробелы только между другими символами' }],
  [r`^[0-9]{6}$`, 'six_digits', { en: 'exactly 6 digits', ru: 'ровно 6 цифр' }],
  [r`^[0-9A-Za-z -]+$`, 'recovery_code', { en: 'Latin letters, digits, spaces and -', ru: 'латинские буквы, цифры, пробелы и -' }],
  [r`^[0-9a-f]{32}$`, 'hex32', { en: '32 hexadecimal digits (0-9, a-f)', ru: '32 шестнадцатеричные цифры (0-9, a-f)' }],
  [r`^[A-Za-z0-9_-]+$`, 'base64url', { en: 'base64url characters: Latin letters, digits, - and _', ru: 'символы base64url: латинские буквы, цифры, - и _' }],
  [r`^https?://`, 'http_url', { en: 'an address starting with http:// or https://', ru: 'адрес, начинающийся с http:// или https://' }],
  [r`^[0-9]{1,8}$`, 'digits8', { en: '1 to 8 digits', ru: 'от 1 до 8 цифр' }],
  [r`^[!#-&(-.0-\[\]-_a-~]+(?: [!#-&(-.0-\[\]-_a-~]+)*$`, 'command', { en: 'printable ASCII words separated by single spaces, without " \' / \\ or `', ru: 'слова из печатных символов ASCII через один пробел, без " \' / \\ и `' }],
  [r`^[!-~]+(?: [!-~]+)*$`, 'ascii_words', { en: 'printable ASCII words separated by single spaces', ru: 'слова из печатных символов ASCII через один пробел' }],
  [r`^[A-Za-z][A-Za-z0-9_-]*(?::[A-Za-z][A-Za-z0-9_-]*)?$`, 'av_name', { en: 'Latin letters, digits, _ and -, starting with a letter; optionally vendor:name', ru: 'латинские буквы, цифры, _ и -, первый символ — буква; можно в виде производитель:имя' }],
  [r`^(?:[ -#%-~]|\$(?!\{))*$`, 'av_value', { en: 'printable ASCII characters; no ${', ru: 'печатные символы ASCII; без ${' }],
  [r`^[^\u0000-\u001f\u007f]+$`, 'no_control', { en: 'any characters except control characters', ru: 'любые символы, кроме управляющих' }],
  [r`^[^\u0000-\u0008\u000A-\u001F\u007F]+$`, 'no_control_tab', { en: 'any characters except control characters (tab is allowed)', ru: 'любые символы, кроме управляющих (табуляция допустима)' }],
  [r`^([01][0-9]|2[0-3]):[0-5][0-9]$`, 'time', { en: 'a time as HH:MM, 00:00 to 23:59', ru: 'время в виде ЧЧ:ММ, от 00:00 до 23:59' }],
  [r`^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$`, 'time_end', { en: 'a time as HH:MM, 00:00 to 24:00', ru: 'время в виде ЧЧ:ММ, от 00:00 до 24:00' }],
  [r`^(?!(?:service|cmd|cmd-arg)$)[!-)+-<>-~]+$`, 'nas_av_name', { en: 'printable ASCII without spaces, * or =; not service, cmd or cmd-arg', ru: 'печатные символы ASCII без пробелов, * и =; не service, cmd и cmd-arg' }],
  [r`^[ -~]*$`, 'printable', PRINTABLE],
  [r`^[\x20-\x7e]*$`, 'printable', PRINTABLE],
  [r`^[\x20-\x7e]+$`, 'printable', PRINTABLE],
  [r`^[\x21-\x7e]+$`, 'printable_no_space', { en: 'printable ASCII characters, no spaces', ru: 'печатные символы ASCII, без пробелов' }],
  [r`^[A-Za-z0-9_-]{43}$`, 'key43', { en: '43 base64url characters (Latin letters, digits, - and _)', ru: '43 символа base64url (латинские буквы, цифры, - и _)' }],
  [r`^[A-Za-z0-9.:_-]+$`, 'host', { en: 'a host name or address: Latin letters, digits and . : _ -', ru: 'имя или адрес узла: латинские буквы, цифры и . : _ -' }],
  [r`^[A-Z]{2}$`, 'country', { en: 'a two-letter country code in capitals (US, DE)', ru: 'двухбуквенный код страны заглавными буквами (US, RU)' }],
  [r`^[a-z0-9][a-z0-9-]{0,39}$`, 'slug', SLUG],
  [r`^[a-z0-9][a-z0-9-]{0,19}$`, 'slug', SLUG],
  [r`^[a-z][a-z0-9_]{0,31}$`, 'field_name', { en: 'lower-case Latin letters, digits and _, starting with a letter', ru: 'строчные латинские буквы, цифры и _, первый символ — буква' }],
  [r`^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$`, 'domain', { en: 'a domain name such as example.com', ru: 'доменное имя, например example.com' }],
  [r`^#[0-9a-f]{6}$`, 'colour', { en: 'a colour as # and 6 lower-case hexadecimal digits (#1a2b3c)', ru: 'цвет: # и 6 строчных шестнадцатеричных цифр (#1a2b3c)' }],
]

const BY_PATTERN = new Map<string, PatternWords>(TABLE.map(([p, id, w]) => [p, { id, ...w }]))

/** The words for a schema's pattern, or undefined for a pattern the table lacks (the test refuses that). */
export function patternWords(pattern: string): PatternWords | undefined {
  return BY_PATTERN.get(pattern)
}

/** `core:patterns.<id>` for one language, for the locales. */
export function patternLocale(lang: 'en' | 'ru'): Record<string, string> {
  return Object.fromEntries(TABLE.map(([, id, w]) => [id, w[lang]]))
}
