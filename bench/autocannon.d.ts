/** The part of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    p50: number
    p90: number
    p97_5: number
    p99: number
    p99_9: number
    total: number
  }
  interface Options {
    url: string
    connections?: number
    pipelining?: number
    duration?: number
    amount?: number
    headers?: Record<string, string>
    method?: string
    /** The request body (bench/pki.ts: a DER OCSP request). */
    body?: string | Buffer
    title?: string
    timeout?: number
    /** Requests in turn on each connection; `setupRequest` may change each one (bench/portal.ts: a new guest's query each time). */
    requests?: { method?: string; path?: string; headers?: Record<string, string>; setupRequest?: (req: { method?: string; path?: string; headers?: Record<string, string> }) => { method?: string; path?: string; headers?: Record<string, string> } }[]
  }
  interface Result {
    title?: string
    url: string
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    statusCodeStats: Record<string, { count: number }>
  }
  /** An event emitter that is also a promise of the result. */
  interface Instance extends PromiseLike<Result> {
    /** Every completed response; `responseTime` in fractional milliseconds. */
    on(event: 'response', fn: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this
    stop(): void
  }
  function autocannon(opts: Options): Instance
  export default autocannon
}
