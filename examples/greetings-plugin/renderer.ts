/** A renderer: all greetings into one "message of the day" file, deterministic. */
import type { ConfigRenderer, SettingsService } from '@portcullis/sdk'
import type { GreetingsService } from './service.js'
import { greetingSuffix } from './settings.js'

export const motdRenderer = (d: { greetings: GreetingsService; settings: SettingsService }): ConfigRenderer => ({
  id: 'greetings.motd',
  daemon: 'motd',
  async render(snapshot) {
    const suffix = await d.settings.get(greetingSuffix, snapshot)
    const lines = (await d.greetings.list(snapshot)).map((g) => `${g.message}, ${g.name}${suffix}`)
    return [{ path: 'motd.txt', content: lines.join('\n') + '\n', mode: 0o644 }]
  },
})
