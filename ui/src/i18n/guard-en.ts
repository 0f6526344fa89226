/** English for the sign-out's question while a page holds unsaved work (components/LeaveGuard.ts): en.ts's `guard`. */
const guard = {
  signOutTitle: 'Sign out without saving?',
  signOutMessage: (sections: string) => `Settings changed and not saved: ${sections}. Signing out drops these changes.`,
  signOut: 'Sign out without saving',
}

export type GuardMessages = typeof guard
export default guard
