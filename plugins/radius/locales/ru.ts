export default {
  errors: {
    profile_name_taken: 'Профиль RADIUS «{{name}}» уже существует.',
    attribute_unknown: 'Неизвестный атрибут RADIUS «{{name}}». Поддерживаемые атрибуты перечислены в GET /api/v1/radius/dictionary.',
    attribute_unknown_suggest: 'Неизвестный атрибут RADIUS «{{name}}». Возможно, имелся в виду «{{suggestion}}»?',
    attribute_repeated: 'Атрибут {{name}} может встречаться в профиле только один раз.',
    reply_too_large:
      'Атрибуты занимают в ответе RADIUS $t(radius:count.bytes, {"count": {{size}} }), на $t(radius:count.bytes, {"count": {{over}} }) больше, чем {{max}}, которые пакет в 4096 байт оставляет профилю помимо заголовка, Message-Authenticator, MS-CHAP2-Success и Proxy-State (начиная с attributes[{{index}}] устройство их не получит).',
    value: {
      control: 'Значение {{name}} содержит управляющий символ или символ направления текста (перевод строки, табуляцию, смену направления …), это недопустимо.',
      percent: 'Значение {{name}} содержит «%», который FreeRADIUS раскрыл бы как подстановку; это недопустимо.',
      variable: 'Значение {{name}} содержит «${» или «$ENV{», которые FreeRADIUS заменил бы значением из конфигурации или окружения; это недопустимо.',
      too_long: 'Значение {{name}} занимает $t(radius:count.bytes, {"count": {{size}} }) в UTF-8, на $t(radius:count.bytes, {"count": {{over}} }) больше предела {{max}}, который {{name}} вмещает в пакете RADIUS.',
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
