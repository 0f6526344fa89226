/**
 * The listeners other plugins register on the ingested RADIUS records (api.ts
 * `registerRecordListener`): delivery after commit, in order, with retries,
 * and a failure that is logged and counted instead of stopping ingestion.
 */
import type { Logger } from '../../../sdk/index.js'
import { RECORD_LISTENER_RETRIES_MS, type RadiusLogRecord, type RadiusRecordListener } from '../api.js'

export class RecordListeners {
  private readonly list = new Map<number, { name: string; fn: RadiusRecordListener }>()
  private next = 0
  /** Batches delivered, and batches a listener failed on every attempt (each one logged). */
  readonly stats = { delivered: 0, listenerFailures: 0, listenerMs: 0 }

  constructor(
    private readonly logger: Logger,
    private readonly retriesMs: readonly number[] = RECORD_LISTENER_RETRIES_MS,
  ) {}

  register(name: string, fn: RadiusRecordListener): () => void {
    const id = this.next++
    this.list.set(id, { name, fn })
    return () => void this.list.delete(id)
  }

  /** Whether anybody listens: the ingester keeps the parsed records of a batch only then. */
  get active(): boolean {
    return this.list.size > 0
  }

  /** Hands a committed batch to every listener in turn; never throws. */
  async deliver(records: readonly RadiusLogRecord[]): Promise<void> {
    if (!records.length) return
    const t0 = performance.now()
    for (const { name, fn } of [...this.list.values()]) {
      for (let attempt = 0; ; attempt++) {
        try {
          await fn(records)
          break
        } catch (e) {
          if (attempt < this.retriesMs.length) {
            this.logger.warn({ err: e, listener: name, attempt: attempt + 1 }, 'aaa-logs: a record listener failed; retrying the batch')
            await new Promise((r) => setTimeout(r, this.retriesMs[attempt]))
            continue
          }
          this.stats.listenerFailures++
          // The rows are committed: what is lost is this listener's view of them, named here so it can be replayed.
          this.logger.error(
            { err: e, listener: name, records: records.length, first_id: records[0].id, last_id: records[records.length - 1].id },
            'aaa-logs: a record listener failed on every attempt; its batch is skipped (the log rows are stored)',
          )
          break
        }
      }
    }
    this.stats.delivered++
    this.stats.listenerMs += performance.now() - t0
  }
}
