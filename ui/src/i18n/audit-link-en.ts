/** English for the link beside a kept name in an audit entry (pages/AuditDiff.tsx): en.ts's `auditLink`. */
const auditLink = {
  /** The object's own screen, or its list filtered to it. */
  openObject: 'Open',
}
export type AuditLinkMessages = typeof auditLink
export default auditLink
