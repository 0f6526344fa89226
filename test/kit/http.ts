/** A small HTTP client for tests: JSON in, parsed JSON (or text) out, headers kept. */
export interface TestResponse<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface RequestOptions {
  body?: unknown
  /** Raw body text, sent as is (malformed JSON tests). */
  raw?: string
  token?: string
  headers?: Record<string, string>
}

export async function request<T = any>(base: string, method: string, path: string, o: RequestOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) }
  if (o.token) headers.authorization = `Bearer ${o.token}`
  let body: string | undefined
  if (o.raw !== undefined) body = o.raw
  else if (o.body !== undefined) {
    body = JSON.stringify(o.body)
    headers['content-type'] ??= 'application/json'
  }
  if (body !== undefined) headers['content-type'] ??= 'application/json'
  const res = await fetch(base + path, { method, headers, body })
  const text = await res.text()
  let parsed: unknown = text
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text)
  return { status: res.status, headers: res.headers, body: parsed as T, text }
}
