// The worker thread of wal-checkpoints.ts: its own connection to the ledger's file, checkpointing the write-ahead log
// on a timer so that the copy into the database file and its fsync never run on the event loop.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

/** What wal-checkpoints.ts hands the worker. */
export interface CheckpointWorkerData { path: string, intervalMs: number, retryMs: number }

/** What the worker tells wal-checkpoints.ts: its checkpoints started failing (the first failure of a run), or work again. */
export type CheckpointNews = { failing: { message: string, code: string | undefined } } | { resumed: { failures: number } }

const { path, intervalMs, retryMs } = workerData as CheckpointWorkerData
const database = new Database(path)
// The syncs a checkpoint makes follow the connection that runs it: the same as the service's own connection.
database.pragma('synchronous = NORMAL')
// A checkpoint copies frames from the log to the file without the page cache: this connection needs almost none.
database.pragma('cache_size = -256')
// PASSIVE copies what no reader still needs and never waits for a lock, so the service's connection is never held up.
// While calls keep coming the next pass starts at once; when none are left to copy, after intervalMs. A pass that fails
// (the disk full: the file cannot grow) is tried again after retryMs, and the thread lives on: the service is told
// once when they start failing and once when they work again.
let timer: NodeJS.Timeout
let failures = 0
function pass () {
  let delay: number
  try {
    const [{ log, checkpointed }] = database.pragma('wal_checkpoint(PASSIVE)') as [{ log: number, checkpointed: number }]
    if (failures > 0) parentPort?.postMessage({ resumed: { failures } } satisfies CheckpointNews)
    failures = 0
    delay = log > checkpointed ? 0 : intervalMs
  } catch (error) {
    if (failures++ === 0) {
      const { message, code } = error as Error & { code?: string }
      parentPort?.postMessage({ failing: { message, code } } satisfies CheckpointNews)
    }
    delay = retryMs
  }
  timer = setTimeout(pass, delay)
}
timer = setTimeout(pass, intervalMs)
parentPort?.once('message', () => {
  clearTimeout(timer)
  database.close()
  parentPort?.close()
})
