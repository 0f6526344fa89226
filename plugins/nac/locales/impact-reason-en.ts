/** The NAC change impact's reasons of an outcome (services/impact-side.ts), spread into en.ts under `impact_reason`. */
export default {
  nothing_deployed: 'nothing is deployed to FreeRADIUS: no request is answered',
  no_client: 'no RADIUS client holds the address the request came from: FreeRADIUS drops the packet',
  refused: 'refused before the policy ({{reason}}): {{detail}}',
  rule_holds: 'rule {{position}} {{name}} holds',
  default_rule: 'no rule holds: the default rule decides',
}
