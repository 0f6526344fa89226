/** POST /aaa/policy/test: simulate a request against the policy as the daemons would decide it. */
import { defineRoute, ErrorBody } from '../../../sdk/index.js'
import { PolicyErrors } from '../errors.js'
import { POLICY_READ } from '../permissions.js'
import { PolicyTestRequest, PolicyTestResponse, TACACS_ONLY_METHODS } from '../schemas/test.js'
import { DAEMON_OF, parsePolicyInputs, POLICY_INPUTS_FILE, snapshotPolicyData } from '../services/deployed-inputs.js'
import { evaluate, evaluateWith } from '../services/evaluate.js'
import { traceWords } from '../services/first-match.js'
import type { PolicyRouteDeps } from './deps.js'

/**
 * A word `<cr>` anywhere but last (after the command), in any case since the patterns are caseless.
 * The last one is the end marker a Cisco NAS appends and the daemon's log shows (`show version <cr>`):
 * the patterns take the line with or without it alike. Anywhere else the daemon's answer depends on
 * whether the NAS appends its own marker after it (`show x <cr>` sent as the words show, x, <cr> is
 * permitted by `show \S+` without the NAS's marker and denied with it: checked against tac_plus-ng),
 * which the test cannot know. Words as a NAS splits them (tacacs services/command-match.ts commandWords).
 */
function ambiguousCr(line: string): boolean {
  const words = line.split(/[ \t]+/).filter((w) => w !== '')
  return words.some((w, i) => /^<cr>$/i.test(w) && (i === 0 || i !== words.length - 1))
}

export function policyTestRoutes(d: PolicyRouteDeps) {
  const deps = { identity: d.identity, settings: d.settings, inventory: d.inventory, tacacs: d.tacacs, radius: d.radius, listRules: d.rules.views }
  return [
    defineRoute({
      method: 'POST',
      path: '/aaa/policy/test',
      permission: POLICY_READ,
      summary: 'Test the AAA policy with a simulated request',
      description:
        "Answers what the rendered configuration decides for `username` on a device (`device_id`, or `nas_ip` resolved to the enabled device with the most specific prefix containing it; exactly one, else 422 at `nas_ip`). An unknown, disabled or non-network user, or an unknown or disabled device or one without a key for the protocol, is denied before any rule. Then the rules are tried in order: disabled rules are skipped, the first whose WHO and WHERE both match decides: permit with its profile for the protocol, or deny when it has none. TACACS+ only (`service`, `command`: else 422): `attributes` are those set at the start of an exec shell (`service` shell, the default); `command` is decided by the matched profile's command sets into `command_decision` (the `decision` stays the ruleset's verdict); the line is split as a NAS splits it, on space and TAB only, into `cmd` and `cmd-arg` (NBSP and other Unicode spaces stay inside a word; LF, CR and other control characters deny the line; a last word `<cr>` is the end marker a Cisco NAS appends; a `<cr>` anywhere else answers 422 at `command`, since the daemon decides such a line differently with and without the NAS's own marker). `method` (`pap`, `chap`, `mschapv2`, and for TACACS+ `ascii`, `enable`; RADIUS defaults to `pap`, TACACS+ without it answers authorization only) adds the login: a user without network password material (`network_verifiers_set` false), CHAP, or TACACS+ MS-CHAPv2, without a kept password (`chap_enabled` with a password set while it was on), or a method the rendered configuration has no password for is denied with that reason before any rule. RADIUS: `attributes` are the profile's reply attributes. `nas_attributes` (TACACS+) are the AV pairs the NAS sends after `service`, merged into `authorization_reply` as tac_plus-ng merges them (a mandatory one the profile does not set exactly: deny). `trace` lists the rules tried up to the deciding one. A protocol whose plugin the edition does not load answers 422 PROTOCOL_UNAVAILABLE at `protocol`. `against: deployed` answers from the inputs the protocol daemon's active release was rendered from (kept in the release as `policy-test-inputs.json`, no secrets), so changes not yet deployed (`GET /api/v1/aaa/policy/status`) do not count; 409 POLICY_TEST_NOT_DEPLOYED when there is no such release. `answered_from` names what answered. See docs/aaa-policy.md.",
      tags: ['aaa-policy'],
      schema: { body: PolicyTestRequest, response: { 200: PolicyTestResponse, 409: ErrorBody } },
      handler: async ({ body, lang, t }) => {
        // The trace's reasons in the caller's language (the decision's own `reason` is English still).
        const words = traceWords(lang, t)
        if ((body.device_id === undefined) === (body.nas_ip === undefined)) throw PolicyErrors.testTarget({ field: body.device_id === undefined ? 'device_id' : 'nas_ip' })
        if (body.protocol !== 'tacacs') {
          for (const k of ['service', 'command', 'priv_lvl', 'nas_attributes'] as const) if (body[k] !== undefined) throw PolicyErrors.testTacacsOnly({ field: k, vars: { name: k } })
          if (body.method !== undefined && TACACS_ONLY_METHODS.includes(body.method)) throw PolicyErrors.testMethodTacacsOnly({ field: 'method', vars: { method: body.method } })
        }
        // Command authorization is a request of service shell.
        if (body.command !== undefined && (body.service ?? 'shell') !== 'shell') throw PolicyErrors.testCommandShell({ field: 'command' })
        if (body.command !== undefined && ambiguousCr(body.command)) throw PolicyErrors.testCommandCr({ field: 'command' })
        if (!d[body.protocol]) {
          throw PolicyErrors.testProtocolUnavailable({ field: 'protocol', vars: { plugin: body.protocol, protocol: body.protocol === 'tacacs' ? 'TACACS+' : 'RADIUS' } })
        }
        if (body.against === 'deployed') {
          // The inputs the active release on this node was rendered from, kept in it (services/deployed-inputs.ts).
          const daemon = DAEMON_OF[body.protocol]
          const release = await d.deploys.currentFiles(daemon, { reveal: true })
          const file = release?.files.find((f) => f.path === POLICY_INPUTS_FILE)
          const inputs = file ? parsePolicyInputs(file.content) : null
          if (!release || !inputs) throw PolicyErrors.testNotDeployed({ field: 'against', vars: { daemon } })
          const answered_from = { against: 'deployed' as const, daemon, release: release.release, deploy_id: release.deploy_id || null, deployed_at: release.activated_at }
          return d.database.transaction(async (trx) => ({ ...(await evaluateWith(deps, snapshotPolicyData(inputs, deps, trx), body, words)), answered_from }), { isolation: 'repeatable read' })
        }
        const answered_from = { against: 'database' as const, daemon: null, release: null, deploy_id: null, deployed_at: null }
        // One consistent snapshot; every read goes through it (the embedded engine has one connection).
        return d.database.transaction(async (trx) => ({ ...(await evaluate(deps, trx, body, words)), answered_from }), { isolation: 'repeatable read' })
      },
    }),
  ]
}
