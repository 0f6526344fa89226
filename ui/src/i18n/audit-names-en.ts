/** English for the audit trail's kept names and readable reorders (pages/AuditReorder.tsx, AuditDiff.tsx): en.ts's `auditNames`. */
const auditNames = {
  /** The name the object had at the event, kept after a rename or deletion. */
  nameAtEvent: 'Name at the time',
  openList: 'Open the list',
  order: 'Evaluation order',
  orderBefore: 'Before',
  orderAfter: 'After',
  moved: (name: string, from: number, to: number) => `Rule '${name}' moved from position ${from} to ${to}`,
  reordered: (n: number) => `${n} rules changed position`,
}
export type AuditNamesMessages = typeof auditNames
export default auditNames
