/** `POST /api/v1/backups`: the whole installation as one archive, for administrators only. See docs/backup.md. */
import { AUTHENTICATED, defineRoute, ErrorBody, reply, Type } from '../../sdk/index.js'
import { E as IdentityErrors } from '../identity/routes/guards.js'
import type { BackupService } from './service.js'

export const backupRoutes = (svc: BackupService) => [
  defineRoute({
    method: 'POST',
    path: '/backups',
    // No permission a role could hold: an archive carries every password hash and sealed secret.
    permission: AUTHENTICATED,
    summary: 'Back up the installation (administrators only)',
    description:
      'Answers a backup archive (`.tar.gz`), streamed as it is made: a consistent dump of the whole database taken in one snapshot (every table of the kernel and of each plugin, the deployed releases among them, the AAA logs), and a manifest with `app_version`, the schema revision of every plugin, the engine, the creation time, the node id, the SHA-256 of every member and the id of the master key that sealed the secrets (the key itself is never in it), sealed with a key derived from the master key. Secrets stay sealed as they are in the database: the archive is useless without the master key, and the master key must be kept apart from it. Restore with `portcullis restore FILE` into an empty installation (docs/backup.md).\n\nOnly an administrator may take a backup, whatever permissions a role grants: any other caller gets 403 ADMIN_REQUIRED. Each backup is audited (`backup.create`). An error after the answer started cuts the stream short; such an archive is refused by a restore as truncated.',
    tags: ['backup'],
    download: {
      mediaTypes: ['application/gzip'],
      headers: { 'Content-Disposition': { description: '`attachment; filename="portcullis-<version>-<UTC time>.tar.gz"`', schema: Type.String(), required: true } },
    },
    schema: { response: { 200: 'file', 403: ErrorBody } },
    handler: async (req) => {
      if (!req.actor?.isAdmin) throw IdentityErrors.adminRequired()
      const file = svc.fileName()
      // Audited first (and committed): the archive then holds the record of its own making.
      await req.transaction((trx) => req.audit({ action: 'backup.create', resourceType: 'backup', resourceId: file, after: { file } }, trx))
      const { stream, done } = await svc.open()
      done.catch((e: unknown) => req.log.error({ err: (e as Error).message, file }, 'backup: the archive could not be completed; the answer was cut short'))
      return reply({ status: 200, stream, contentType: 'application/gzip', headers: { 'Content-Disposition': `attachment; filename="${file}"` } })
    },
  }),
]
