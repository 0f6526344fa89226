/** Причины итога в оценке влияния изменений NAC (services/impact-side.ts); см. impact-reason-en.ts. */
export default {
  nothing_deployed: 'на FreeRADIUS ничего не развёрнуто: ни на один запрос нет ответа',
  no_client: 'ни один клиент RADIUS не содержит адрес, с которого пришёл запрос: FreeRADIUS отбрасывает пакет',
  refused: 'отклонён до политики ({{reason}}): {{detail}}',
  rule_holds: 'выполнено правило {{position}} {{name}}',
  default_rule: 'ни одно правило не выполнено: решает правило по умолчанию',
}
