/** English for the console's one confirmation dialog (components/Confirm.tsx): en.ts's `confirm`. */
const confirm = {
  touches: 'What this touches',
  /** The dialog's title: the action and what it acts on. */
  title: (action: string, name: string) => `${action}: ${name}`,
  deployTitle: (d: string) => `Deploy ${d}`,
  deployAllTitle: 'Deploy every daemon',
  deployQuestion: 'Check, write and reload the daemons with the configuration shown? The running daemons switch to it.',
  replaces: (d: string, r: string | null) => (r ? `${d}: replaces the active release ${r}` : `${d}: its first release`),
  rollbackTitle: (d: string, r: string) => `Roll back ${d} to ${r}`,
  rollbackReplaces: (d: string, r: string | null) => (r ? `${d}: the active release ${r} is replaced` : `${d}: no active release now`),
  rollbackBecomes: (r: string) => `Becomes active again: ${r}`,
  session: (mac: string) => `Session of ${mac}`,
  nas: (n: string) => `At the NAS ${n}`,
  user: (u: string) => `User ${u}`,
}

export type ConfirmMessages = typeof confirm
export default confirm
