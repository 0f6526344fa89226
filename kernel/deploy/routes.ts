/** The deploy API: deploy (or dry run), history, one deploy, rollback. See docs/deploy.md. */
import { defineRoute, ErrorBody, isPortcullisError, listQuery, Nullable, OptionalText, paginate, Paginated, reply, StringEnum, Type, Uuid } from '../../sdk/index.js'
import { DeployErrors, toView, withRefusals, type DeployService } from './service.js'
import type { NamedRevocation } from './revocations.js'
import { withArrival } from '../cluster/view.js'
import { DeployImpact } from './impact.js'


const FileRecord = Type.Object(
  {
    path: Type.String(),
    sha256: Nullable(Type.String({ description: 'SHA-256 of the file as the configuration views show it, every secret masked (the text GET /radius/config/preview answers without `reveal`): never of the file on disk, which would let anyone confirm a guessed secret offline. Null for a release deployed before masked hashes were recorded.' })),
    size: Nullable(Type.Integer({ minimum: 0, description: 'Bytes of the masked text (as `sha256`), never of the file on disk, whose size would tell a secret\'s length. Null for a release deployed before masked sizes were recorded.' })),
    mode: Type.String({ description: 'Octal, e.g. `0600`.' }),
  },
  { additionalProperties: false },
)

const STATUSES = ['pending', 'active', 'failed', 'superseded', 'rolled_back'] as const

export const DeployResponse = Type.Object(
  {
    id: Uuid(),
    daemon: Type.String(),
    release: Type.String({ description: 'Folder name under `<DATA_DIR>/releases/<daemon>/` of the node `node_id`.' }),
    status: StringEnum(STATUSES, { description: '`pending` only while being activated (an interrupted one becomes `failed` when its node starts again); `active`: the release activated last in the cluster, one per daemon; `superseded` by a later deploy; `rolled_back` when a rollback replaced it.' }),
    node_id: Nullable(Type.String({ format: 'uuid', description: 'The node that ran the deploy (rendered and checked it first). Every node serves the active release: see `nodes`. null for deploys recorded before node ids were.' })),
    actor_id: Nullable(Type.String()),
    actor_name: Nullable(Type.String()),
    comment: Nullable(Type.String()),
    checked: Nullable(Type.Boolean({ description: 'Whether the daemon\'s own check ran (true), or was skipped because its binary is absent or no check is configured (null).' })),
    check_output: Nullable(Type.String()),
    files: Type.Array(FileRecord),
    failure_reason: Nullable(
      StringEnum(['check_failed', 'check_skipped', 'not_activated', 'interrupted'] as const, {
        description: 'Why a `failed` release was not activated: `check_failed`, its daemon\'s check failed (`check_output`); `check_skipped`, its check could not run and `deploy.allow_unchecked` is off; `not_activated`, its own check passed but another daemon\'s of the same deploy did not (`blocked_by`): deploy this daemon alone to activate it; `interrupted`, the deploy stopped before the activation. null for any other status, and for releases recorded before this field.',
      }),
    ),
    blocked_by: Type.Array(Type.String(), { description: 'For `failure_reason: not_activated`: the daemons of the same deploy whose check stopped it; empty otherwise.' }),
    reload_status: Nullable(StringEnum(['ok', 'failed'] as const, { description: 'null: no reload command for this daemon.' })),
    reload_output: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    activated_at: Nullable(Type.String({ format: 'date-time' })),
    nodes: Type.Array(
      Type.Object(
        {
          node_id: Type.String({ format: 'uuid' }),
          hostname: Type.String(),
          live: Type.Boolean({ description: 'Its heartbeat is recent (GET /api/v1/cluster/nodes).' }),
          state: StringEnum(['serving', 'behind', 'failed', 'other'] as const, {
            description: '`serving`: this release is current on the node; for the active release, `behind`: not yet there, `failed`: the node keeps its old release (its check failed there; GET /api/v1/cluster/nodes says why); `other`: the node serves another release (this one is no longer active).',
          }),
          release: Nullable(Type.String({ description: 'The release the node serves.' })),
        },
        { additionalProperties: false },
      ),
      { description: 'Per node that serves this daemon: whether this release arrived, so that "the history says active" never hides a node still serving the old one.' },
    ),
  },
  { title: 'DeployResponse', additionalProperties: false },
)

const DeployRequest = Type.Object(
  {
    daemon: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Deploy only this daemon (e.g. `tac_plus-ng`, `freeradius`); all daemons when absent.' })),
    dry_run: Type.Optional(Type.Boolean({ description: 'Render and diff against the current release; activate nothing.' })),
    comment: OptionalText({ maxLength: 500 }),
    impact: Type.Optional(DeployImpact),
  },
  { title: 'DeployRequest', additionalProperties: false },
)

const DeployRunResponse = Type.Object({ deploys: Type.Array(DeployResponse) }, { title: 'DeployRunResponse', additionalProperties: false })

const DryRunResponse = Type.Object(
  {
    dry_run: Type.Literal(true),
    daemons: Type.Array(
      Type.Object(
        {
          daemon: Type.String(),
          current_release: Nullable(Type.String()),
          checked: Nullable(Type.Boolean()),
          check_ok: Type.Boolean(),
          check_output: Type.String(),
          changes: Type.Array(
            Type.Object(
              {
                path: Type.String(),
                change: StringEnum(['added', 'removed', 'changed', 'unchanged'] as const),
                diff: Type.String({ description: 'Unified diff of the masked texts: every secret value of the release deployed and of the render, wherever it appears and however it is escaped, is `***` on both sides.' }),
                mode_before: Nullable(Type.String()),
                mode_after: Nullable(Type.String()),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'DeployDryRunResponse', additionalProperties: false },
)

const DeployParams = Type.Object({ deploy_id: Uuid() }, { additionalProperties: false })

const DeployQuery = listQuery({
  maxPerPage: 200,
  defaultPerPage: 20,
  sortBy: ['created_at', 'daemon', 'status'] as const,
  defaultSortOrder: 'desc',
  filters: {
    daemon: Type.Optional(Type.String({ maxLength: 64 })),
    status: Type.Optional(StringEnum(STATUSES)),
  },
})

export const deployRoutes = (svc: DeployService) => [
  defineRoute({
    method: 'POST',
    path: '/deploys',
    permission: 'deploy.write',
    summary: 'Deploy the daemons\' configuration',
    description:
      'Renders every renderer (or those of `daemon`) from one consistent snapshot, writes a new release folder per daemon, runs the daemon\'s own check when its binary is present, then switches `current` atomically, stores the release in the database and reloads the daemon (its supervised restart, or the server option `deploy.reload_commands`). A failed check activates nothing: 422 DEPLOY_CHECK_FAILED with the checker\'s output, and in `detail` each other daemon\'s result (its check failed too, could not run, or passed but was not activated because of it: deploy it alone); each release is recorded `failed` with its `failure_reason` and audited `deploy.failed` with the outcome `failure`. `dry_run: true` answers 200 with a per-file diff against the current release and activates nothing.\n\n`impact` (optional) is the change impact the deployer was shown (the console asks the policy plugins\' impact routes first): its summary sentence, window and counts, kept as sent in the audit entry `deploy.activate` of each release; it changes nothing in the deploy.\n\nIn a cluster the node that receives the request renders, checks and activates; every other node\'s agent then writes the release from the database into its own `DATA_DIR`, checks it there, switches and reloads (each deploy\'s `nodes` says where it arrived; GET /api/v1/cluster/nodes shows each node). One deploy or rollback runs at a time across the whole cluster: a request that finds another running waits for it up to the setting `deploy.lock_wait_seconds` (default 30), then answers 409 DEPLOY_IN_PROGRESS naming the node that holds the lock. Requests sent to the same node queue behind each other.',
    tags: ['deploy'],
    schema: { body: DeployRequest, response: { 200: DryRunResponse, 201: DeployRunResponse, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
    handler: async (req) => {
      const b = req.body
      if (b.dry_run) return reply({ status: 200, body: { dry_run: true, daemons: await svc.dryRun(b.daemon) } })
      try {
        const deploys = await withArrival(svc.db.knex, await svc.deploy({ daemon: b.daemon, comment: b.comment ?? null, impact: b.impact ?? null, actor: req.actor, requestId: req.requestId }))
        return reply({ status: 201, body: { deploys } })
      } catch (e) {
        // The other daemons' results in the caller's language (the service knows none): the envelope has `detail` only.
        throw withRefusals(e, req.t)
      }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/deploys',
    permission: 'deploy.read',
    summary: 'Deploy history',
    description: 'Newest first by default. Filters: `daemon`, `status`.',
    tags: ['deploy'],
    schema: { query: DeployQuery, response: { 200: Paginated(DeployResponse, 'DeployListResponse') } },
    handler: async ({ query }) => {
      const page = await paginate(query, {
        base: () => svc.db.knex('deploys'),
        equals: { daemon: 'daemon', status: 'status' },
        searchColumns: ['daemon', 'release', 'comment', 'actor_name'],
        sortColumns: { created_at: 'created_at', daemon: 'daemon', status: 'status' },
        defaultSort: 'created_at',
        defaultPerPage: 20,
        tieBreaker: 'id',
        map: toView,
      })
      return { ...page, items: await withArrival(svc.db.knex, page.items) }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/deploys/{deploy_id}',
    permission: 'deploy.read',
    summary: 'One deploy',
    tags: ['deploy'],
    schema: { params: DeployParams, response: { 200: DeployResponse, 404: ErrorBody } },
    handler: async ({ params }) => {
      const d = await svc.get(params.deploy_id)
      if (!d) throw DeployErrors.notFound({ field: 'deploy_id' })
      return (await withArrival(svc.db.knex, [d]))[0]
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/deploys/{deploy_id}/rollback',
    permission: 'deploy.write',
    summary: 'Re-activate an earlier release',
    description:
      'Makes this deploy\'s release active again (it must have been active once and its files still be in the database: 409 DEPLOY_NOT_ROLLBACKABLE / DEPLOY_RELEASE_MISSING otherwise), marks the release it replaces `rolled_back`; every node\'s agent points its `current` at it and reloads its daemon, whichever node receives the request (`nodes` says where it arrived). Waits for a deploy running elsewhere like `POST /deploys` (409 DEPLOY_IN_PROGRESS).\n\nA rollback never re-admits revoked access: the daemon\'s configuration is rendered now and compared with the release, and if the release would let in anything revoked since it was made (a user deleted, disabled, with network login off or expired, a changed network password, an earlier expiry, a certificate revoked since, a CA no longer trusted, an endpoint taken out of its endpoint group or deleted), the rollback is refused with 409 DEPLOY_ROLLBACK_REVOKES_ACCESS whose `detail` names each (user, certificate serial or endpoint MAC, what, when) and nothing changes: deploy instead. If the configuration does not render now, the rollback answers the deploy\'s 422 DEPLOY_RENDER_FAILED, since what was revoked cannot be known.',
    tags: ['deploy'],
    schema: { params: DeployParams, response: { 200: DeployResponse, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
    handler: async (req) => {
      try {
        return (await withArrival(svc.db.knex, [await svc.rollback(req.params.deploy_id, { actor: req.actor, requestId: req.requestId })]))[0]
      } catch (e) {
        // Each revocation in the caller's language (the service knows none).
        if (!isPortcullisError(e) || e.code !== DeployErrors.rollbackRevokesAccess.code) throw e
        const list = e.vars.list as NamedRevocation[]
        const revocations = list.map((r) => req.t(`core:deploy.revocation.${r.kind}`, { name: r.name, at: r.at ?? req.t('core:deploy.revocation.at_unknown') })).join('; ')
        throw DeployErrors.rollbackRevokesAccess({ vars: { ...e.vars, revocations } })
      }
    },
  }),
]
