/**
 * What the person deploying was shown of the change's impact (the console's Deploys screen asks the
 * policy plugins' impact routes before a deploy): an optional part of the deploy request, kept as it
 * was sent in the audit entry of each release activated, so the trail says what the deployer knew.
 * The kernel names no plugin: a source is any short name (`aaa`, `nac`), its numbers are counts.
 * Bounded so that no request can make the trail hold more than a summary.
 */
import { StringEnum, TEXT_PATTERN, Type, type Static } from '../../sdk/index.js'

const MAX_COUNT = 1_000_000_000

const Count = (what: string) =>
  Type.Object(
    {
      requests: Type.Integer({ minimum: 0, maximum: MAX_COUNT, description: 'Distinct requests.' }),
      events: Type.Integer({ minimum: 0, maximum: MAX_COUNT, description: 'Real requests behind them.' }),
    },
    { additionalProperties: false, description: what },
  )

const Source = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z][a-z0-9_-]*$', description: 'Which impact report (the console: `aaa`, `nac`).' }),
    state: StringEnum(['complete', 'limit_reached', 'forbidden', 'unavailable', 'failed'] as const, {
      description: '`complete`: the whole window was replayed; `limit_reached`: a bound stopped it (the numbers cover what was replayed); `forbidden`: the deployer may not read it; `unavailable`: its plugin is not loaded; `failed`: it answered an error.',
    }),
  },
  { additionalProperties: false },
)

export const DeployImpact = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 2000, pattern: TEXT_PATTERN, description: 'The summary as it was shown, in the deployer\'s language.' }),
    window_days: Type.Integer({ minimum: 1, maximum: 90, description: 'The window of the logs replayed, in days.' }),
    permit_to_deny: Count('Permitted requests that the deploy denies.'),
    deny_to_permit: Count('Denied requests that the deploy permits.'),
    attributes: Count('Requests whose attributes change (priv-lvl, VLAN, ACL…).'),
    rule: Type.Optional(Count('Requests decided by another rule or command-set line, with the same answer.')),
    unreplayable: Type.Optional(Count('Requests that could not be replayed (a wrong password, an MFA step…).')),
    sources: Type.Array(Source, { maxItems: 8, description: 'Each impact report asked, and how it answered.' }),
    confirmed: Type.Optional(Type.Boolean({ description: 'true when the deployer confirmed a deploy that denies permitted requests.' })),
  },
  {
    additionalProperties: false,
    description:
      'The change impact shown before the deploy (optional; the console sends it): recorded as it is in the audit entry of each release activated (`deploy.activate`, under `impact`). It changes nothing in the deploy.',
  },
)
export type DeployImpactRecord = Static<typeof DeployImpact>
