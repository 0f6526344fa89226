/**
 * Skip a test or a suite and say why in the output: a skip that says nothing hides a missing daemon
 * or tool. In CI nothing `.ci/run` can install may be missing, so such a line there is a defect.
 */
export function skipBecause(ctx: Mocha.Context, why: string): never {
  console.log(`      skipped: ${why}`)
  ctx.skip()
}
