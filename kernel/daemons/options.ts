/** The server option that turns supervision on: which daemons this node runs itself. */
import { defineServerOption, Type } from '../../sdk/index.js'

/**
 * A server option, not a setting: it makes the server start programs, so only the server's
 * configuration may set it (docs/security.md). Each node reads its own: a node that only serves the
 * API and the console lists none.
 */
export const superviseOption = defineServerOption(
  'daemons.supervise',
  Type.Array(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }), { maxItems: 16, uniqueItems: true }),
  [],
  'The daemons this node starts and keeps running from their active release (e.g. `["freeradius", "tac_plus-ng"]`): in the foreground, restarted when they exit (after 1 s, 2 s, 4 s … at most 60 s apart), restarted on each new release, stopped when the server stops. `[]`: none (the daemons are started some other way, e.g. by systemd with `deploy.reload_commands`).',
  { env: 'DAEMONS_SUPERVISE' },
)
