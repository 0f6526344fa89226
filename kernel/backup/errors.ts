/**
 * Why a restore refuses (docs/backup.md, docs/errors.md). Each refusal is
 * raised before anything is written to the target; the command line prints
 * `CODE: sentence` and exits 1.
 */
import { defineError } from '../../sdk/index.js'

export const BackupErrors = {
  /** Not a Portcullis backup, unreadable, or cut short (a truncated download or copy). */
  archiveInvalid: defineError(422, 'BACKUP_ARCHIVE_INVALID', 'core:backup.archive_invalid'),
  /** A member's checksum or the manifest's seal does not match: the archive was changed after it was made. */
  archiveTampered: defineError(422, 'BACKUP_ARCHIVE_TAMPERED', 'core:backup.archive_tampered'),
  masterKeyMissing: defineError(503, 'BACKUP_MASTER_KEY_MISSING', 'core:backup.master_key_missing'),
  masterKeyMismatch: defineError(409, 'BACKUP_MASTER_KEY_MISMATCH', 'core:backup.master_key_mismatch'),
  versionMismatch: defineError(409, 'BACKUP_VERSION_MISMATCH', 'core:backup.version_mismatch'),
  fromNewerVersion: defineError(409, 'BACKUP_FROM_NEWER_VERSION', 'core:backup.from_newer_version'),
  pluginMissing: defineError(409, 'BACKUP_PLUGIN_MISSING', 'core:backup.plugin_missing'),
  targetNotEmpty: defineError(409, 'BACKUP_TARGET_NOT_EMPTY', 'core:backup.target_not_empty'),
  targetSchemaNewer: defineError(409, 'BACKUP_TARGET_SCHEMA_NEWER', 'core:backup.target_schema_newer'),
} as const
