export default {
  errors: {
    profile_name_taken: 'Профиль RADIUS «{{name}}» уже существует.',
    attribute_unknown: 'Неизвестный атрибут RADIUS «{{name}}». Поддерживаемые атрибуты перечислены в GET /api/v1/radius/dictionary.',
    attribute_unknown_suggest: 'Неизвестный атрибут RADIUS «{{name}}». Возможно, имелся в виду «{{suggestion}}»?',
    attribute_repeated: 'Атрибут {{name}} может встречаться в профиле только один раз.',
    value: {
      control: 'Значение {{name}} содержит управляющий символ (перевод строки, табуляцию …), это недопустимо.',
      percent: 'Значение {{name}} содержит «%», который FreeRADIUS раскрыл бы как подстановку; это недопустимо.',
      variable: 'Значение {{name}} содержит «${» или «$ENV{», которые FreeRADIUS заменил бы значением из конфигурации или окружения; это недопустимо.',
      too_long: 'Значение {{name}} превышает предел: $t(radius:count.bytes, {"count": {{max}} }) (UTF-8).',
      integer: '{{name}} принимает целое число от {{min}} до {{max}}.',
      enum: '{{name}} принимает одно из значений: {{values}}.',
      ipaddr: '{{name}} принимает адрес IPv4, например 192.0.2.10.',
      ipv6addr: '{{name}} принимает адрес IPv6, например 2001:db8::10.',
      hex: 'Значение {{name}}, начинающееся с 0x, читается как шестнадцатеричное: после 0x нужно чётное число шестнадцатеричных цифр.',
      avpair: '{{name}} принимает пару атрибут=значение (или атрибут*значение), например shell:priv-lvl=15.',
      tag: 'Значение {{name}} не должно начинаться с «:»: FreeRADIUS прочитал бы «:N:» как метку (tag).',
    },
  },
  count: {
    bytes_one: '{{count}} байт',
    bytes_few: '{{count}} байта',
    bytes_many: '{{count}} байт',
    bytes_other: '{{count}} байта',
  },
}
