/** A refusal to boot: a stable code and a sentence an operator can act on. */
export type BootErrorCode =
  | 'CONFIG_INVALID'
  | 'EDITION_UNKNOWN'
  | 'PLUGIN_NOT_FOUND'
  | 'PLUGIN_INVALID'
  | 'PLUGIN_DUPLICATE'
  | 'PLUGIN_DEPENDENCY_MISSING'
  | 'PLUGIN_DEPENDENCY_CYCLE'
  | 'PLUGIN_SDK_MISMATCH'
  | 'ROUTE_DUPLICATE'
  | 'ROUTE_INVALID'
  | 'PERMISSION_DUPLICATE'
  | 'PERMISSION_UNDECLARED'
  | 'SERVICE_MISSING'
  | 'SERVICE_DUPLICATE'
  | 'SETTING_DUPLICATE'
  | 'SETTING_INVALID'
  | 'MIGRATION_FAILED'
  | 'SCHEMA_DRIFT'
  | 'DATABASE_UNREACHABLE'
  | 'MASTER_KEY_INVALID'

export class BootError extends Error {
  constructor(readonly code: BootErrorCode, message: string) {
    super(message)
    this.name = 'BootError'
  }
  override toString() {
    return `[${this.code}] ${this.message}`
  }
}
