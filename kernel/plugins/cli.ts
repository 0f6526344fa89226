/**
 * The commands plugins add to the `portcullis` command line (`cli` in the
 * manifest). A command's name starts with its plugin's id, so two plugins
 * cannot claim the same name by accident and a reader knows where it comes
 * from; the kernel's own commands (render, check, deploy, help) have no
 * hyphen and cannot collide either.
 */
import type { CliCommand, PluginDefinition } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'

export interface OwnedCommand {
  owner: PluginDefinition
  command: CliCommand
}

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)+$/

/** Refuses a malformed `cli` list at boot, as any other malformed part of a manifest. */
export function validateCliCommands(p: PluginDefinition, spec: string): void {
  if (p.cli === undefined) return
  const bad = (why: string) => new BootError('PLUGIN_INVALID', `plugin "${spec}": ${why}`)
  if (!Array.isArray(p.cli)) throw bad('cli must be a list of commands from defineCliCommand()')
  const seen = new Set<string>()
  for (const c of p.cli) {
    const name = (c as Partial<CliCommand> | null)?.name
    if (typeof name !== 'string' || !NAME.test(name) || !name.startsWith(`${p.id}-`)) throw bad(`command name ${JSON.stringify(name)} must be "${p.id}-<word>" (lower case, hyphens)`)
    if (seen.has(name)) throw bad(`command ${name} is listed twice`)
    seen.add(name)
    if (typeof c.run !== 'function' || typeof c.summary !== 'string' || typeof c.usage !== 'string') throw bad(`command ${name} needs summary, usage and run`)
    if (c.deps !== undefined && (typeof c.deps !== 'object' || c.deps === null)) throw bad(`command ${name}: deps must be a map of service refs`)
  }
}

/** Every loaded plugin's commands, by name; two plugins naming the same command refuse. */
// `{ def }` rather than load.ts's LoadedPlugin: load.ts imports this file, and imports go one way (test/imports.test.ts).
export function collectCliCommands(plugins: readonly { def: PluginDefinition }[]): Map<string, OwnedCommand> {
  const out = new Map<string, OwnedCommand>()
  for (const { def } of plugins) {
    for (const command of def.cli ?? []) {
      const prev = out.get(command.name)
      if (prev) throw new BootError('PLUGIN_INVALID', `command ${command.name} is added by both ${prev.owner.id} and ${def.id}`)
      out.set(command.name, { owner: def, command })
    }
  }
  return out
}
