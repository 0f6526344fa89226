/**
 * `@portcullis/sdk` names the platform's own SDK, whoever imports it. A plugin
 * built out of the tree imports the SDK by package name and may carry a copy
 * of `@portcullis/sdk` in its node_modules (it compiled against it); at run
 * time that import is answered with the SDK this server was built with, so
 * there is one SDK in the process: one SDK_VERSION checked against the
 * plugin's range, one set of error brands, route markers and schemas.
 * (Those are keyed by Symbol.for and plain fields, so a second copy would
 * work too; one copy is simply what the version check promises.)
 *
 * A module resolution hook (Node's `module.register`, Node >= 20.6) is the
 * only way to answer a bare specifier for a file outside this tree: Node looks
 * bare specifiers up in the importing file's own node_modules.
 */
import { existsSync } from 'node:fs'
import { register } from 'node:module'
import { fileURLToPath } from 'node:url'

/** The package name plugins import; only the entry itself (the SDK has no subpath a plugin needs at run time). */
export const SDK_PACKAGE = '@portcullis/sdk'

/** Runs on Node's loader thread: plain JavaScript, no imports, so it loads the same way from source or dist/. */
const HOOKS = `
let sdk
export function initialize(data) { sdk = data.sdk }
export async function resolve(specifier, context, next) {
  if (specifier === ${JSON.stringify(SDK_PACKAGE)}) return { url: sdk, shortCircuit: true }
  return next(specifier, context)
}
`

let registeredUrl: string | null = null

/** The SDK entry beside this kernel: dist/sdk/index.js when built, sdk/index.ts from source (tsx). */
export function kernelSdkUrl(): string {
  const js = new URL('../../sdk/index.js', import.meta.url)
  return existsSync(fileURLToPath(js)) ? js.href : new URL('../../sdk/index.ts', import.meta.url).href
}

/** Idempotent: the first call registers the hook for the rest of the process. */
export function resolveSdkToKernel(): string {
  if (registeredUrl) return registeredUrl
  registeredUrl = kernelSdkUrl()
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, import.meta.url, { data: { sdk: registeredUrl } })
  return registeredUrl
}
