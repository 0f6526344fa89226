/**
 * A small in-process queue for work a request must not wait for (password
 * reset: the lookup, the token and the mail). Bounded twice: at most
 * `capacity` jobs wait, at most `concurrency` run, so a flood of requests
 * costs memory and SMTP connections only up to those numbers; beyond them a
 * job is dropped and logged, never queued without end.
 *
 * A job starts after a random delay (up to `jitterMs`): the load it puts on the
 * server (a database write, a mail) then lands among other requests at a time
 * the caller does not know, so timing the next request does not tell which
 * kind of job the previous one started.
 */
import { randomInt } from 'node:crypto'
import type { Logger } from '../../sdk/index.js'

export class BackgroundQueue {
  private readonly waiting: (() => Promise<void>)[] = []
  private running = 0
  /** Jobs inside their random delay: they count against the capacity too. */
  private delayed = 0

  constructor(private readonly o: { name: string; capacity: number; concurrency: number; jitterMs: number }) {}

  /** Queues the job to start after the current request has answered; false when the queue is full and the job was dropped. */
  push(job: () => Promise<void>, log: Logger): boolean {
    if (this.waiting.length + this.delayed >= this.o.capacity) {
      log.warn({ queue: this.o.name, capacity: this.o.capacity }, 'background queue full: job dropped')
      return false
    }
    const run = async () => {
      try {
        await job()
      } catch (e) {
        log.error({ queue: this.o.name, err: (e as Error).message }, 'background job failed')
      }
    }
    this.delayed++
    // Never sooner than the next turn of the event loop: the answer is written first.
    setTimeout(() => {
      this.delayed--
      this.waiting.push(run)
      this.pump()
    }, 1 + randomInt(this.o.jitterMs + 1)).unref()
    return true
  }

  /** Jobs delayed, waiting or running: zero when the queue is idle. */
  get size(): number {
    return this.delayed + this.waiting.length + this.running
  }

  private pump(): void {
    while (this.running < this.o.concurrency && this.waiting.length) {
      const job = this.waiting.shift()!
      this.running++
      void job().finally(() => {
        this.running--
        this.pump()
      })
    }
  }
}
