import { Type, referenceReportSchema } from '../../../sdk/index.js'

/**
 * Device and group names become tac_plus-ng device/group names and
 * FreeRADIUS client short names: letters, digits and `. _ -`, starting with
 * a letter or digit. No spaces, quotes or braces, which those files would
 * have to escape.
 */
export const ConfigName = (description: string) =>
  Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description })

/**
 * A shared secret lands inside a double-quoted string of tac_plus-ng and
 * FreeRADIUS configuration: `"` and `\` would end or escape it, and
 * FreeRADIUS expands `${…}` inside double quotes, so `$` is refused too.
 * Printable ASCII otherwise; no space at either end, which devices trim.
 */
const SECRET_CHAR = '!#%-\\[\\]-~'
export const SharedSecret = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: `^[${SECRET_CHAR}]([ ${SECRET_CHAR}]*[${SECRET_CHAR}])?$`,
    writeOnly: true,
    description: `${what} Write-only: never returned; the response says only whether one is set. 1 to 128 printable ASCII characters except \`"\`, \`\\\` and \`$\`, no space at either end. Stored sealed with the master key. \`null\` (or blank) removes it; leaving the field out keeps it.`,
  })

/** What refers to a device or a device group, as the referring plugins' guards answer (sdk/references.ts). */
export const InventoryReferenceReport = referenceReportSchema({
  title: 'InventoryReferenceReport',
  referenceTitle: 'InventoryReference',
  types: "`aaa_policy_rule` (an AAA policy rule whose WHERE names it), `nac_policy_rule`, `ncm_device`, or another plugin's record.",
})
