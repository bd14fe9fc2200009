import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { CheckpointWorkerData } from './wal-checkpoint-worker.js'

/** How long the thread waits to look again when the log had nothing left to copy. */
const INTERVAL_MS = 100

/**
 * The thread's file sits next to this one: `.js` in dist/ and the bundle, `.ts` when the tests load the sources through
 * tsx. A worker's entry gets no loader hooks on Node 20 (a `--import` in its execArgv is not run), so from the sources
 * the thread registers tsx's own before it imports the file.
 */
function checkpointThread (workerData: CheckpointWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { workerData })
  const source = new URL('./wal-checkpoint-worker.ts', import.meta.url).href
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source)}) })`, { eval: true, workerData })
}

export interface WalCheckpoints { stop (): Promise<void> }

/**
 * SQLite's automatic checkpoint runs inside the COMMIT that crosses 1,000 pages of write-ahead log: it copies them into
 * the database file and fsyncs it, on the event loop, since better-sqlite3 is synchronous. On the hosts measured
 * that took 10-15 ms every few hundred paid calls, during which no request moved (docs/performance.md). SQLite's
 * documentation suggests, for such applications, checkpointing from a thread of its own: this starts that thread. The
 * caller raises its own connection's threshold (open-store.ts) and lowers it back if the thread ends unasked (onEnded).
 */
export function startWalCheckpoints (path: string, onEnded: (error?: Error) => void): WalCheckpoints {
  const workerData: CheckpointWorkerData = { path, intervalMs: INTERVAL_MS }
  const worker = checkpointThread(workerData)
  let ended = false
  // A thread that fails or ends unasked must not end the process: the caller takes the checkpoints back, once.
  const end = (error?: Error) => {
    if (ended) return
    ended = true
    onEnded(error)
  }
  worker.on('error', end)
  worker.on('exit', () => { end() })
  worker.unref()
  return {
    async stop () {
      ended = true
      // Held until the thread has closed its connection, or a process with nothing else left would exit first.
      worker.ref()
      const exited = once(worker, 'exit')
      worker.postMessage('stop')
      await exited
    }
  }
}
