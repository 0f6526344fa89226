/** English for a refused deploy (pages/DeployFailure.tsx): en.ts's `deployFailure`. */
const deployFailure = {
  /** The history's line under a failed release's status, from its `failure_reason`. */
  reason: {
    check_failed: (d: string) => `The check of ${d} failed`,
    check_skipped: (d: string) => `The check of ${d} could not run`,
    not_activated: (d: string, by: string) => `Not activated: the check of ${by} failed in the same deploy; deploy ${d} alone to activate it`,
    interrupted: () => 'Interrupted before activation',
  },
  /** The button offered after "Deploy all" was refused because of another daemon. */
  deployOnly: (d: string) => `Deploy ${d} only`,
  suggestion: (ds: string, by: string) => `Only the check of ${by} stopped the deploy; ${ds} can be deployed alone.`,
  /** The summary of a folded check output. */
  outputOf: (lines: number) => `${lines} line${lines === 1 ? '' : 's'}`,
  dashboardReason: { check_failed: 'check failed', check_skipped: 'check could not run', not_activated: 'not activated (another check failed)', interrupted: 'interrupted', reload: 'reload failed' },
}

export type DeployFailureMessages = typeof deployFailure
export default deployFailure
