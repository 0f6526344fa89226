/**
 * COPY in text format on the transaction's own connection, the one format
 * both engines read and write alike: on PostgreSQL through pg-copy-streams
 * (COPY … TO STDOUT / FROM STDIN, streamed), on the embedded engine through
 * PGlite's `/dev/blob` (the rows of one statement in memory).
 */
import { once } from 'node:events'
import type { Knex } from 'knex'
import type pg from 'pg'
import { from as copyFrom, to as copyTo } from 'pg-copy-streams'

export type Engine = 'postgres' | 'embedded'

/** The few PGlite calls used here (the embedded client's connection). */
interface PgliteConnection {
  query(sql: string, params?: unknown[], opts?: { blob?: Blob }): Promise<{ blob?: Blob; affectedRows?: number }>
}

/** knex's transaction client hands out the transaction's own connection. */
const connectionOf = async <T>(trx: Knex.Transaction): Promise<T> => (await (trx.client as { acquireConnection(): Promise<T> }).acquireConnection())

/**
 * The COPY text of `select` (a table name with its columns, or a parenthesised query), in chunks.
 * `pool` is another connection's way in: a reader that stops early (the client of a download went
 * away) has the server's COPY cancelled from there, since the transaction's own connection stays
 * busy with the COPY until the server has sent all of it.
 */
export async function* copyOut(trx: Knex.Transaction, engine: Engine, select: string, pool: Knex): AsyncGenerator<Buffer> {
  if (engine === 'embedded') {
    const conn = await connectionOf<PgliteConnection>(trx)
    const r = await conn.query(`COPY ${select} TO '/dev/blob'`)
    if (r.blob && r.blob.size) yield Buffer.from(await r.blob.arrayBuffer())
    return
  }
  const conn = await connectionOf<pg.Client>(trx)
  const stream = conn.query(copyTo(`COPY ${select} TO STDOUT`))
  let complete = false
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false })) yield chunk as Buffer
    complete = true
  } finally {
    if (!complete && !stream.destroyed && !stream.readableEnded) {
      // Cancelled, then read to its end (the error or the last rows), so the connection is free to roll back.
      const ended = new Promise<void>((resolve) => {
        for (const ev of ['end', 'error', 'close']) stream.once(ev, () => resolve())
      })
      await pool.raw('SELECT pg_cancel_backend(?)', [(conn as pg.Client & { processID: number }).processID]).catch(() => undefined)
      stream.resume()
      await ended
    }
  }
}

/** Loads COPY text into `target` (a table with its column list) in one statement; the chunks must end on a row boundary. */
export async function copyIn(trx: Knex.Transaction, engine: Engine, target: string, chunks: AsyncIterable<Buffer>): Promise<void> {
  if (engine === 'embedded') {
    const parts: Buffer[] = []
    for await (const c of chunks) parts.push(c)
    if (!parts.length) return
    const conn = await connectionOf<PgliteConnection>(trx)
    await conn.query(`COPY ${target} FROM '/dev/blob'`, [], { blob: new Blob(parts as Uint8Array<ArrayBuffer>[]) })
    return
  }
  const conn = await connectionOf<pg.ClientBase>(trx)
  const sink = conn.query(copyFrom(`COPY ${target} FROM STDIN`))
  const failed = new Promise<never>((_, reject) => sink.once('error', reject))
  failed.catch(() => undefined)
  try {
    for await (const c of chunks) {
      if (!sink.write(c)) await Promise.race([once(sink, 'drain'), failed])
    }
  } catch (e) {
    // The rows could not be read (a damaged member): end the statement with an error so the server rolls it back.
    sink.destroy(e as Error)
    await Promise.race([once(sink, 'close'), failed]).catch(() => undefined)
    throw e
  }
  sink.end()
  await Promise.race([once(sink, 'finish'), failed])
}
