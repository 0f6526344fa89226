/** English for what only assistive technology hears (screen readers): en.ts's `a11y`. */
const a11y = {
  /** A device group's depth in the tree, after its name (the indent and └ say it to the eye). */
  groupLevel: (level: number) => `, level ${level}`,
  /** A count that is a link: its number first (what is seen), then where it leads. */
  countLink: (count: number, where: string) => `${count}: ${where}`,
}

export type A11yMessages = typeof a11y
export default a11y
