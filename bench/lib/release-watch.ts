/**
 * Worker thread of bench/cluster-propagation.ts: watches, from an event loop of
 * its own (the deploying node runs in the main thread and is busy right after
 * its commit), what a daemon on each node would see, and when:
 * - `link`: `<releases>/<daemon>/current` names another release (readlink
 *   every `everyMs`): the moment the node serves it;
 * - `partial`: a `<release>.partial` folder appears (the agent has read and
 *   opened the release from the database and begins writing it);
 * - `folder`: the finished `<release>` folder appears (written; its check runs);
 * - `notify`: the `portcullis_release` notification, heard on a LISTEN
 *   connection of its own (delivered at the deploy's commit, as the agents hear it).
 * Each event is posted with its wall-clock time (Date.now()).
 */
import { readdirSync, readlinkSync } from 'node:fs'
import path from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import pg from 'pg'

export interface Watch {
  node: string
  daemon: string
  /** `<DATA_DIR>/releases/<daemon>` */
  dir: string
  /** Also report the folders as they are written (else only the link). */
  folders: boolean
}

export interface WatchEvent {
  kind: 'link' | 'partial' | 'folder' | 'notify'
  node: string | null
  daemon: string
  release: string | null
  at: number
}

const { watches, databaseUrl, everyMs } = workerData as { watches: Watch[]; databaseUrl: string; everyMs: number }
const post = (e: WatchEvent) => parentPort!.postMessage(e)

const link = (dir: string): string | null => {
  try {
    return path.basename(readlinkSync(path.join(dir, 'current')))
  } catch {
    return null
  }
}
const names = (dir: string): string[] => {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

const lastLink = watches.map((w) => link(w.dir))
const seen = watches.map((w) => new Set(names(w.dir)))
let stopped = false

const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-release-watch' })
client.on('notification', (n) => post({ kind: 'notify', node: null, daemon: n.payload ?? '', release: null, at: Date.now() }))
await client.connect()
await client.query('LISTEN portcullis_release')

const poll = () => {
  if (stopped) return
  const at = Date.now()
  watches.forEach((w, i) => {
    const l = link(w.dir)
    if (l !== lastLink[i]) {
      lastLink[i] = l
      post({ kind: 'link', node: w.node, daemon: w.daemon, release: l, at })
    }
    if (!w.folders) return
    for (const n of names(w.dir)) {
      if (seen[i].has(n) || n.startsWith('.') || n === 'current') continue
      seen[i].add(n)
      if (n.endsWith('.partial')) post({ kind: 'partial', node: w.node, daemon: w.daemon, release: n.slice(0, -'.partial'.length), at })
      else post({ kind: 'folder', node: w.node, daemon: w.daemon, release: n, at })
    }
  })
  setTimeout(poll, everyMs)
}

parentPort!.on('message', (m) => {
  if (m !== 'stop') return
  stopped = true
  void client.end().finally(() => parentPort!.close())
})
parentPort!.postMessage('ready')
poll()
