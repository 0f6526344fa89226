/**
 * Listeners of something that happened, called after the commit that made it happen: each awaited in
 * turn (so that what a listener does is done before the API answers), and a listener that throws is
 * logged and never undoes, blocks or retries the change, nor stops the listeners after it.
 */
import type { Logger } from './services.js'

export class AfterCommitListeners<E> {
  private readonly listeners = new Set<(event: E) => Promise<void> | void>()

  /** `what`: the log line of a failing listener; `context`: what of the event that line names. */
  constructor(
    private readonly log: Logger,
    private readonly what: string,
    private readonly context: (event: E) => Record<string, unknown>,
  ) {}

  /** Subscribes; returns the removal. */
  on(listener: (event: E) => Promise<void> | void): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  async emit(event: E): Promise<void> {
    for (const l of [...this.listeners]) {
      try {
        await l(event)
      } catch (err) {
        this.log.error({ err, ...this.context(event) }, this.what)
      }
    }
  }
}
