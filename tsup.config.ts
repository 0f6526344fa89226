import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { build } from 'esbuild'
import { defineConfig } from 'tsup'

interface RootPackage {
  license: string
  engines: Record<string, string>
  dependencies: Record<string, string>
}

/**
 * dist/sdk is also the package `@portcullis/sdk` that out-of-tree plugins
 * build against (`npm pack dist/sdk`, or `npm install <server>/dist/sdk`):
 * its version is the SDK's, its dependencies the server's own versions of
 * what the SDK imports. The declarations come from `tsc -p tsconfig.sdk.json`
 * (`npm run build`). At run time the server answers `@portcullis/sdk` with
 * this same code (kernel/plugins/sdk-resolution.ts).
 */
function writeSdkPackage(): void {
  const root = JSON.parse(readFileSync('package.json', 'utf8')) as RootPackage
  const version = /SDK_VERSION = '([^']+)'/.exec(readFileSync('sdk/version.ts', 'utf8'))?.[1]
  if (!version) throw new Error('sdk/version.ts has no SDK_VERSION')
  // typebox and exceljs run inside the SDK; knex is in its types (DatabaseService.knex, Knex.Transaction).
  const deps = Object.fromEntries(['typebox', 'exceljs', 'knex'].map((d) => [d, root.dependencies[d]]))
  const entry = (name: string) => ({ types: `./${name}.d.ts`, default: `./${name}.js` })
  const pkg = {
    name: '@portcullis/sdk',
    version,
    description: 'The Portcullis plugin SDK. A plugin lists it in peerDependencies: the server provides it at run time.',
    type: 'module',
    license: root.license,
    engines: root.engines,
    exports: { '.': entry('index'), './testing': entry('testing'), './package.json': './package.json' },
    dependencies: deps,
  }
  writeFileSync('dist/sdk/package.json', JSON.stringify(pkg, null, 2) + '\n')
}

/**
 * typebox ships as 373 small ES modules; loading them was a quarter of a
 * start's module loading. The built SDK imports one bundled copy instead
 * (dist/sdk/typebox.js, made from the installed package at every build, never
 * checked in). Only the SDK imports typebox at run time (sdk/schema.ts), and
 * what it builds is plain JSON Schema, so one copy or another is alike.
 */
async function bundleTypebox(): Promise<void> {
  await build({ entryPoints: ['typebox'], bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile: 'dist/sdk/typebox.js', logLevel: 'warning' })
  const file = 'dist/sdk/schema.js'
  const code = readFileSync(file, 'utf8')
  const imports = code.match(/from "typebox"/g)?.length ?? 0
  if (imports !== 1) throw new Error(`${file}: expected one import of "typebox" to point at the bundle, found ${imports}`)
  writeFileSync(file, code.replace('from "typebox"', 'from "./typebox.js"'))
}

// Transpile file by file (no bundling): plugins and migrations are found on
// disk at run time, so dist/ mirrors the source tree. The test kit's server half
// (test/kit) is built too: out-of-tree plugins' tests run it through @portcullis/sdk/testing.
// The push-MFA service (push/) is its own entry point, dist/push/main.js (its own Docker target);
// so is the configuration collector (collector/), dist/collector/main.js.
export default defineConfig({
  entry: ['kernel/**/*.ts', 'sdk/**/*.ts', 'plugins/**/*.ts', 'push/**/*.ts', 'collector/**/*.ts', 'migrations/**/*.ts', 'examples/**/*.ts', 'test/kit/*.ts', '!{kernel,sdk,plugins,push,collector,migrations,examples}/**/test/**', '!**/*.test.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  bundle: false,
  splitting: false,
  sourcemap: true,
  clean: true,
  dts: false,
  outDir: 'dist',
  onSuccess: async () => {
    writeSdkPackage()
    await bundleTypebox()
    // The example console page's browser module is plain JavaScript, not transpiled: copied beside its plugin.
    cpSync('examples/console-pages/web', 'dist/examples/console-pages/web', { recursive: true })
  },
})
