/** GET /aaa/policy/status: whether the policy as edited is what the daemons run, and where the diff is. */
import { defineRoute, Nullable, Type, Uuid } from '../../../sdk/index.js'
import { POLICY_READ } from '../permissions.js'
import { DAEMON_OF } from '../services/deployed-inputs.js'
import type { PolicyRouteDeps } from './deps.js'

const PolicyStatusResponse = Type.Object(
  {
    pending: Type.Boolean({ description: 'true when a daemon below has changes not yet deployed.' }),
    checked_at: Type.String({ format: 'date-time', description: 'When the compared render was made: a change through the API is seen at the next poll; a write nothing audits, within 30 s.' }),
    daemons: Type.Array(
      Type.Object(
        {
          protocol: Type.Union([Type.Literal('tacacs'), Type.Literal('radius')]),
          daemon: Type.String(),
          pending: Type.Boolean({
            description:
              'true: what a deploy would render now for this daemon differs from its active release (or nothing is deployed): a change to the rules, users, devices, profiles or anything else its files or the policy test\'s kept inputs hold. A change put back (renders identically) is not pending.',
          }),
          active_release: Nullable(Type.String()),
          deploy_id: Nullable(Uuid()),
          deployed_at: Nullable(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: false },
      ),
      { description: 'The daemons that enforce the policy in this edition (tac_plus-ng for TACACS+, FreeRADIUS for RADIUS).' },
    ),
    dry_run: Type.Object(
      { method: Type.Literal('POST'), path: Type.Literal('/api/v1/deploys'), body: Type.Object({ dry_run: Type.Literal(true) }, { additionalProperties: false }) },
      { additionalProperties: false, description: 'The call that shows the pending changes as a per-file diff (secrets masked), activating nothing; needs deploy.write. Add `daemon` to the body for one daemon.' },
    ),
    test: Type.String({ description: 'How to ask the policy test about the deployed release: `against: "deployed"` in POST /api/v1/aaa/policy/test.' }),
  },
  { title: 'PolicyStatusResponse', additionalProperties: false },
)

export function policyStatusRoutes(d: PolicyRouteDeps) {
  const protocols = (['tacacs', 'radius'] as const).filter((p) => d[p] !== undefined)
  return [
    defineRoute({
      method: 'GET',
      path: '/aaa/policy/status',
      permission: POLICY_READ,
      summary: 'Changes not yet deployed',
      description:
        "Per daemon that enforces the policy: whether what a deploy would render now differs from its active release, with the release and when it was deployed. Cheap to poll: the render is cached per database snapshot and redone only after a write (kernel/deploy/pending.ts). The diff is one call away (`dry_run`); the policy test answers for the deployed release with `against: \"deployed\"`. The same state for every daemon is in GET /api/v1/dashboard/system-info (`deploy`). See docs/deploy.md.",
      tags: ['aaa-policy'],
      schema: { response: { 200: PolicyStatusResponse } },
      handler: async () => {
        const state = await d.deploys.pending()
        const all = new Map(state.daemons.map((p) => [p.daemon, p]))
        const daemons = protocols.map((protocol) => {
          const daemon = DAEMON_OF[protocol]
          const p = all.get(daemon)
          return { protocol, daemon, pending: p?.pending ?? true, active_release: p?.active_release ?? null, deploy_id: p?.deploy_id ?? null, deployed_at: p?.deployed_at ?? null }
        })
        return {
          pending: daemons.some((x) => x.pending),
          checked_at: state.checked_at,
          daemons,
          dry_run: { method: 'POST' as const, path: '/api/v1/deploys' as const, body: { dry_run: true as const } },
          test: 'POST /api/v1/aaa/policy/test with "against": "deployed"',
        }
      },
    }),
  ]
}
