/** GET /aaa/policy/rules/{rule_id}/tacacs/preview: what this rule becomes in tac_plus-ng. */
import { CommonErrors, defineRoute, ErrorBody, secretValueMasker } from '../../../sdk/index.js'
import { POLICY_READ } from '../permissions.js'
import { RuleParams, RuleTacacsPreviewResponse } from '../schemas/rules.js'
import type { TacacsService } from '../../tacacs/api.js'
import { loadRow, toViewOf } from '../services/rules.js'
import type { PolicyRouteDeps } from './deps.js'

/** Registered only when the edition loads the tacacs plugin. */
export function previewRoutes(d: PolicyRouteDeps, tacacs: TacacsService) {
  return [
    defineRoute({
      method: 'GET',
      path: '/aaa/policy/rules/{rule_id}/tacacs/preview',
      permission: POLICY_READ,
      summary: "Preview an AAA policy rule's tac_plus-ng configuration",
      description:
        "`snippet` is the rule's entry of the tac_plus-ng ruleset and `profile_snippet` its TACACS+ profile (with the command sets compiled in), both rendered by the very code that writes the full configuration. A rule without a TACACS+ profile renders `deny` and has no profile snippet. A rule with a time window names a `timespec` (`time == \"RULE\"`) that the full configuration declares before the ruleset; the snippet's comment gives the window.",
      tags: ['aaa-policy'],
      schema: { params: RuleParams, response: { 200: RuleTacacsPreviewResponse, 404: ErrorBody } },
      handler: async ({ params }) =>
        // One snapshot for the rule and its profile; every read goes through it (the embedded engine has one connection).
        d.database.transaction(
          async (trx) => {
            const row = await loadRow(trx, params.rule_id)
            if (!row) throw CommonErrors.notFound({ field: 'rule_id' })
            const profile = row.tacacs_profile_id ? await tacacs.getProfile(row.tacacs_profile_id, trx) : null
            return {
              rule_id: row.id,
              snippet: tacacs.renderRule(await toViewOf(row, d.targets, trx), profile?.name ?? null),
              // aaa-policy.read shows no secret: the enable secret's verifier is masked (as in every view of a release).
              profile_snippet: profile ? secretValueMasker(await tacacs.profileSecrets(profile, trx))(await tacacs.renderProfile(profile, trx)) : null,
            }
          },
          { isolation: 'repeatable read' },
        ),
    }),
  ]
}
