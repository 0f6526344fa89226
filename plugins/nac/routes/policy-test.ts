/** POST /nac/policy/test: what the deployed FreeRADIUS would decide for a simulated request, and why. */
import { defineRoute, ErrorBody, type CompiledNacPolicy, type NacCondition, type NacRequest, type Say } from '../../../sdk/index.js'
import { NacErrors } from '../errors.js'
import { FREERADIUS, NAC_INPUTS_FILE, parseNacInputs } from '../services/impact-inputs.js'
import { resolveDeployedTestRequest } from '../services/policy-test-deployed.js'
import { NAC_POLICY_READ } from '../permissions.js'
import { NacPolicyTestRequest, NacPolicyTestResponse, type CompiledConditionBody } from '../schemas/policy-test.js'
import { accountRefusal, withExpiry } from '../services/account.js'
import { evaluateNacPolicy } from '../services/evaluate.js'
import { checkTestInput, resolveTestRequest, type PolicyTestInput } from '../services/policy-test.js'
import type { NacRouteDeps } from './deps.js'

/** The compiled condition as the answer carries it (mutable copies of the compiled structure's read-only lists). */
function plain(c: NacCondition): CompiledConditionBody {
  switch (c.type) {
    case 'method':
      return { type: c.type, methods: [...c.methods] }
    case 'user_group':
    case 'endpoint_group':
    case 'device_group':
      return { type: c.type, groups: c.groups.map((g) => ({ id: g.id, name: g.name })) }
    case 'device_type':
      return { type: c.type, device_types: [...c.device_types] }
    case 'certificate':
      return { type: c.type, field: c.field, values: [...c.values] }
    case 'nas_port_type':
      return { type: c.type, values: [...c.values] }
    case 'time_window':
      return { type: c.type, window: { label: c.window.label, spans: c.window.spans.map((s) => ({ days: [...s.days], from: s.from, to: s.to })) } }
  }
}

/** `against: deployed`: the same evaluation on what the active FreeRADIUS release was built from. */
async function deployedTest(d: NacRouteDeps, body: PolicyTestInput, say: Say) {
  const release = await d.deploys.currentFiles(FREERADIUS, { reveal: true })
  const file = release?.files.find((f) => f.path === NAC_INPUTS_FILE)
  const inputs = file ? parseNacInputs(file.content) : null
  if (!inputs) throw NacErrors.testNotDeployed({ field: 'against' })
  const { request, resolved, account, at, policy } = await resolveDeployedTestRequest(inputs, { identity: d.identity, inventory: d.inventory, nac: d.nac }, body, d.knex)
  return answer(policy, request, resolved, account, at, body.username ?? null, say)
}

type Resolved = Awaited<ReturnType<typeof resolveTestRequest>>

/** `say`: the caller's language for the refusal's detail and the trace's reasons (`req.t`). */
function answer(compiled: CompiledNacPolicy, request: NacRequest, resolved: Resolved['resolved'], account: Resolved['account'], at: Date, username: string | null, say: Say) {
  // The daemon refuses these before the policy (docs/nac.md "Who 802.1X lets in").
  const refused = accountRefusal(request.method, username, account, at, say)
  if (refused) return { decision: 'reject' as const, refused, rule: null, authorization_profile: null, reply: [], trace: [], resolved }
  const result = evaluateNacPolicy(compiled, request, say)
  const a = result.authorization
  return {
    decision: result.decision,
    refused: null,
    rule: result.rule,
    authorization_profile: { id: a.profile_id, name: a.profile_name, deny: a.deny },
    reply: (result.decision === 'accept' ? withExpiry(result.reply, account, at) : []).map((r) => ({ attribute: r.attribute, value: r.value, ...(r.portal_session ? { portal_session: true } : {}) })),
    trace: result.trace.map((t) => ({ ...t, failed_condition: t.failed_condition && plain(t.failed_condition) })),
    resolved,
  }
}

export function policyTestRoutes(d: NacRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/nac/policy/test',
      permission: NAC_POLICY_READ,
      summary: 'Test the NAC policy with a simulated request',
      description:
        "Resolves the request against the database (the user's account and groups, the endpoint's group and device type by MAC, the switch's device groups). A user the daemon refuses before the policy (PEAP: unknown, disabled, network login off, no network password, a directory user, expired; EAP-TLS, a certificate naming a user: disabled, network login off, expired) answers `reject` with `refused` (the log's reject reason) and no rule. Otherwise it evaluates the compiled NAC policy, the same structure the FreeRADIUS renderer writes: the rule that decides, its authorization profile, the reply attributes, and every rule considered before it with the first condition that failed and why. An EAP-TLS certificate whose CN names no user is a device's (no user); an unknown MAC is not an error (it is in no group); a malformed MAC, a field that does not go with the method (a username for MAB, a certificate without EAP-TLS) or a NAS that is no device answers 422. `against: deployed` answers from what the active FreeRADIUS release was built from (kept in it as `nac-policy-inputs.json`, no secret: the compiled policy, the endpoints, the users, the RADIUS clients and their device groups), so changes not yet deployed do not count; the names shown are read now; 409 POLICY_TEST_NOT_DEPLOYED when no release keeps it. Read-only.",
      tags: ['nac'],
      schema: { body: NacPolicyTestRequest, response: { 200: NacPolicyTestResponse, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        checkTestInput(req.body)
        if (req.body.against === 'deployed') return deployedTest(d, req.body, req.t)
        // Outside a transaction: the lookups run side by side on the pool, and the compiled policy comes from the cache (services/policy-cache.ts).
        const [{ request, resolved, account, at }, compiled] = await Promise.all([
          resolveTestRequest({ identity: d.identity, inventory: d.inventory, nac: d.nac }, req.body, d.knex),
          d.policyCache.get(d.knex),
        ])
        return answer(compiled, request, resolved, account, at, req.body.username ?? null, req.t)
      },
    }),
  ]
}
