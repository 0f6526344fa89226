/** Russian for the browser's check of a form and the help under its inputs (every key of fields-en.ts). */
import type { FieldMessages } from './fields-en.js'

/** 1 символ, 2 символа, 5 символов; after «до»/«от» the genitive: 1 символа, 5 символов. */
const plural = (n: number, one: string, few: string, many: string) => {
  const d = n % 10
  const h = n % 100
  return d === 1 && h !== 11 ? one : d >= 2 && d <= 4 && (h < 12 || h > 14) ? few : many
}
const chars = (n: number) => `${n} ${plural(n, 'символ', 'символа', 'символов')}`
const charsGen = (n: number) => `${n} ${n % 10 === 1 && n % 100 !== 11 ? 'символа' : 'символов'}`
const items = (n: number) => `${n} ${plural(n, 'элемент', 'элемента', 'элементов')}`

const fields: FieldMessages = {
  required: 'Обязательное поле.',
  empty: 'Не может быть пустым.',
  type: (type) => `Должно иметь тип ${type}.`,
  minLength: (n) => `Минимальная длина — ${chars(n)}.`,
  maxLength: (n) => `Максимальная длина — ${chars(n)}.`,
  minimum: (n) => `Должно быть не меньше ${n}.`,
  maximum: (n) => `Должно быть не больше ${n}.`,
  greater: (n) => `Должно быть больше ${n}.`,
  less: (n) => `Должно быть меньше ${n}.`,
  minItems: (n) => `Должно содержать не меньше: ${items(n)}.`,
  maxItems: (n) => `Должно содержать не больше: ${items(n)}.`,
  enum: (allowed) => `Допустимые значения: ${allowed}.`,
  allowed: (words) => `Допустимо: ${words}.`,
  pattern: (pattern) => `Должно соответствовать шаблону ${pattern}.`,
  anyOf: 'Не подходит ни под одну из допустимых форм.',
  length: (min, max) =>
    max === undefined ? (min > 1 ? `не меньше ${charsGen(min)}` : '') : min > 1 && min === max ? `ровно ${chars(max)}` : min > 1 ? `от ${min} до ${charsGen(max)}` : `до ${charsGen(max)}`,
  capital: (s) => s.charAt(0).toUpperCase() + s.slice(1),
}

export default fields
