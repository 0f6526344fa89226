import { pino } from 'pino'
import type { Logger } from '../sdk/index.js'

/** Structured JSON logs on stdout; each request logs through a child carrying its request id. */
export function createLogger(level: string): Logger & { flush?: () => void } {
  return pino({ level, base: { service: 'portcullis' }, timestamp: pino.stdTimeFunctions.isoTime }) as unknown as Logger
}
