import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { Logger } from '../logger.js'
import type { CheckpointNews, CheckpointWorkerData } from './wal-checkpoint-worker.js'

/** How long the thread waits to look again when the log had nothing left to copy. */
const INTERVAL_MS = 100
/** How long the thread waits before it tries again after a checkpoint failed. */
const RETRY_MS = 1000
/** How long stop() waits for the thread to close its connection before it ends the thread. */
const STOP_TIMEOUT_MS = 2000

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
 * A checkpoint that fails (a full disk) is retried by the thread, and said in the log once when they start failing and
 * once when they work again. The thread starts once `from` resolves, at once without it: the server passes a second
 * after it listens (plugins/ledger.ts), since a thread is a Node instance of its own, 150-280 ms of CPU to boot (`node
 * --cpu-prof`, Intel Xeon), which on a 2-core host took a core from the start before its first /health. Until then
 * the caller's connection checkpoints itself past its threshold, as it does whenever the thread is behind.
 */
export function startWalCheckpoints (path: string, onEnded: (error?: Error) => void, log?: Logger, from?: Promise<void>): WalCheckpoints {
  const workerData: CheckpointWorkerData = { path, intervalMs: INTERVAL_MS, retryMs: RETRY_MS }
  let worker: Worker | null = null
  let online = false
  let ended = false
  let exited = false
  // A thread that fails or ends unasked must not end the process: the caller takes the checkpoints back, once.
  const end = (error?: Error) => {
    if (ended) return
    ended = true
    onEnded(error)
  }
  const start = () => {
    const thread = checkpointThread(workerData)
    thread.once('online', () => { online = true })
    thread.on('error', end)
    thread.on('exit', () => {
      exited = true
      end()
    })
    thread.on('message', (news: CheckpointNews) => {
      if ('failing' in news) {
        log?.warn({ reason: news.failing.message, code: news.failing.code, retryEverySeconds: RETRY_MS / 1000 }, 'WAL checkpoints failing; retrying')
      } else {
        log?.info({ failures: news.resumed.failures }, 'WAL checkpoints work again')
      }
    })
    thread.unref()
    worker = thread
  }
  if (from === undefined) start()
  else void from.then(() => { if (!ended) start() })
  return {
    async stop () {
      ended = true
      // A thread not started (never will be, now), or already ended, has nothing to close: waiting for its exit would
      // wait forever.
      if (worker === null || exited) return
      // Still booting (it starts as the server listens, and a stop can come that soon): it would read the stop only once
      // booted, seconds later on a loaded host, and has no connection of its own yet to close (one just opened is
      // closed with the thread).
      if (!online) {
        await worker.terminate()
        return
      }
      // Held until the thread has closed its connection, or a process with nothing else left would exit first.
      worker.ref()
      // An 'error' instead ends the thread as well.
      const exit = once(worker, 'exit').then(() => true, () => true)
      worker.postMessage('stop')
      let timer: NodeJS.Timeout | undefined
      const stopped = await Promise.race([exit, new Promise<false>((resolve) => { timer = setTimeout(resolve, STOP_TIMEOUT_MS, false) })])
      clearTimeout(timer)
      if (!stopped) {
        log?.warn({ waitedMs: STOP_TIMEOUT_MS }, 'WAL checkpoint thread did not stop; ending it')
        await worker.terminate()
      }
    }
  }
}
