/**
 * The in-process queue sender: the scripted phones of the tests and benchmarks take their
 * notifications from here instead of a push network. Every send is recorded with the moment it
 * left (`sentAt`, epoch milliseconds with the sub-millisecond part): the benchmark's "sign-in to
 * push leaving the sender" figure is measured against it.
 */
import type { NotifyPayload, PushAddress, PushSender } from './sender.js'

export interface QueuedPush {
  queue: string
  payload: NotifyPayload
  /** When the sender let it go: performance.timeOrigin + performance.now() (comparable with Date.now()). */
  sentAt: number
}

/** The send log keeps the latest this many (a benchmark's run fits; a long test run does not grow without end). */
const LOG_MAX = 100_000

export class QueueSender implements PushSender {
  readonly kind = 'queue' as const
  private readonly queues = new Map<string, QueuedPush[]>()
  private readonly waiters = new Map<string, ((p: QueuedPush | null) => void)[]>()
  /** Every send, oldest first. */
  readonly sent: QueuedPush[] = []

  async send(address: PushAddress, payload: NotifyPayload): Promise<void> {
    if (address.kind !== 'queue') throw new Error(`the queue sender cannot deliver to a ${address.kind} address`)
    const item: QueuedPush = { queue: address.queue, payload, sentAt: performance.timeOrigin + performance.now() }
    this.sent.push(item)
    if (this.sent.length > LOG_MAX) this.sent.splice(0, this.sent.length - LOG_MAX)
    const waiting = this.waiters.get(address.queue)
    const first = waiting?.shift()
    if (first) {
      first(item)
      return
    }
    const q = this.queues.get(address.queue) ?? []
    q.push(item)
    this.queues.set(address.queue, q)
  }

  /** The oldest notification of `queue`, waiting up to `timeoutMs` for one; null when none came. */
  take(queue: string, timeoutMs: number): Promise<QueuedPush | null> {
    const q = this.queues.get(queue)
    const item = q?.shift()
    if (item) return Promise.resolve(item)
    return new Promise((resolve) => {
      const list = this.waiters.get(queue) ?? []
      const waiter = (p: QueuedPush | null) => {
        clearTimeout(timer)
        resolve(p)
      }
      const timer = setTimeout(() => {
        const l = this.waiters.get(queue)
        const i = l?.indexOf(waiter) ?? -1
        if (l && i >= 0) l.splice(i, 1)
        resolve(null)
      }, timeoutMs)
      list.push(waiter)
      this.waiters.set(queue, list)
    })
  }

  /** What `queue` holds now, without waiting or removing. */
  pending(queue: string): readonly QueuedPush[] {
    return [...(this.queues.get(queue) ?? [])]
  }

  async close(): Promise<void> {
    for (const list of this.waiters.values()) for (const w of list.splice(0)) w(null)
  }
}
