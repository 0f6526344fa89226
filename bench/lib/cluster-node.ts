/**
 * Child process of bench/cluster-propagation.ts: one node of the cluster, its
 * own process and event loop, booted from the environment as in production
 * (DATABASE_URL, DATA_DIR, NODE_ID, MASTER_KEY, PLUGINS, TAC_PLUS_NG…), its
 * node agent running. Tells the parent its address over IPC once it listens;
 * SIGTERM stops the app and exits.
 */
import { pino } from 'pino'
import { startApp } from '../../kernel/app.js'
import { loadConfig } from '../../kernel/config.js'
import type { Logger } from '../../sdk/index.js'

const app = await startApp(loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' }), { log: pino({ level: process.env.LOG_LEVEL ?? 'silent' }) as unknown as Logger })
process.once('SIGTERM', () => {
  void app.stop().finally(() => process.exit(0))
})
process.send?.({ url: app.url, nodeId: app.nodeId })
