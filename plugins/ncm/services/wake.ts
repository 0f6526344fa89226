/**
 * "Fetch now" on this node: a long poll of a collector's jobs waits here between its lease
 * queries, and a fetch-now request ends that wait at once. Other nodes see the due device at
 * their next lease query, within a second.
 */
export class FetchWake {
  private readonly waiting = new Map<string, Set<() => void>>()

  /** Ends the waits of the collector's long polls on this node. */
  notify(collectorId: string): void {
    const set = this.waiting.get(collectorId)
    if (!set) return
    this.waiting.delete(collectorId)
    for (const wake of set) wake()
  }

  /** Resolves after `ms`, or at once when `notify(collectorId)` is called. Never inside a transaction. */
  wait(collectorId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(collectorId)
      if (!set) this.waiting.set(collectorId, (set = new Set()))
      const done = () => {
        clearTimeout(timer)
        this.waiting.get(collectorId)?.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      timer.unref?.()
      set.add(done)
    })
  }

  /** Ends every wait (shutdown). */
  close(): void {
    for (const id of [...this.waiting.keys()]) this.notify(id)
  }
}
