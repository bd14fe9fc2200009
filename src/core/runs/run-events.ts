import type { BeeEvents, RegisteredBee } from '../bee.js'
import type { Ledger } from '../ledger/ledger.js'
import type { StoredRun, StoredRunEvent } from '../ledger/runs/run-repository.js'
import { storeFaultOf } from '../ledger/store-faults.js'
import { now } from '../ledger/timestamps.js'
import type { Logger } from '../logger.js'
import { checkedEvents } from '../streams/checked-events.js'
import { FINISHED } from './schemas.js'

export interface RunEventsOptions {
  ledger: Ledger
  log: Logger
  /** How often a reader looks at its run when no news came: the fallback for a notification lost (a listener reconnecting). */
  pollMs: number
  /** How long after the listener's connection failed it is opened again. */
  relistenMs: number
}

/** What a reader of a run's events gets: each event kept, in order, then the run once it ended. */
export type RunEvent = StoredRunEvent | { kind: 'end', run: StoredRun }

/** How many event rows a reader reads at a time. */
const PAGE = 100

/**
 * A run's events, shared by every instance: the worker keeps each as a row, and tells the run's readers it has news
 * (an event, its end) through the ledger's notifications (PostgreSQL's LISTEN/NOTIFY) as well as in this process
 * (SQLite's single instance). A reader reads rows after the last one it saw, so a lost notification only delays it
 * until its next poll, and a reader that reconnects resumes where it left off.
 */
export class RunEvents {
  readonly #options: RunEventsOptions
  readonly #readers = new Map<string, Set<() => void>>()
  #unlisten: (() => Promise<void>) | null = null
  #relisten: NodeJS.Timeout | undefined
  #closed = false

  constructor (options: RunEventsOptions) {
    this.#options = options
  }

  /** Listens for other instances' news; a connection that fails is opened again after relistenMs (readers poll meanwhile). */
  async start (): Promise<void> {
    if (this.#closed) return
    const { ledger, log, relistenMs } = this.#options
    const again = () => {
      if (this.#closed || this.#relisten !== undefined) return
      this.#relisten = setTimeout(() => { this.#relisten = undefined; void this.start() }, relistenMs)
      this.#relisten.unref()
    }
    try {
      const unlisten = await ledger.runs.watch((id) => { this.#wake(id) }, (error) => {
        log.warn({ err: error }, 'run notifications lost; polling until they are back')
        const lost = this.#unlisten
        this.#unlisten = null
        lost?.().catch(() => {})
        again()
      })
      if (this.#closed) await unlisten()
      else this.#unlisten = unlisten
    } catch (error) {
      log.warn({ err: error }, 'run notifications unavailable; polling until they are back')
      again()
    }
  }

  async stop (): Promise<void> {
    this.#closed = true
    clearTimeout(this.#relisten)
    await this.#unlisten?.()
    this.#unlisten = null
  }

  /** Tells the run's readers, here and on every instance, that it has news. */
  publish (id: string): void {
    this.#wake(id)
    this.#options.ledger.runs.notify(id).catch((error: unknown) => {
      this.#options.log[storeFaultOf(error) === null ? 'warn' : 'debug']({ err: error, runId: id }, 'run notification not sent')
    })
  }

  /** Where a stream Bee's run puts its events: checked against the eventSchema, kept as rows while the worker owns the run, announced. */
  sink (run: StoredRun, runToken: string, bee: RegisteredBee, log: Logger): BeeEvents {
    const keep = async (kind: StoredRunEvent['kind'], data: string) => {
      // A worker that lost its run (cancelled, expired) keeps nothing; its upstream is stopped by the lost heartbeat.
      if (await this.#options.ledger.runs.appendEvent(run.id, runToken, kind, data, now())) this.publish(run.id)
    }
    return checkedEvents(bee, {
      data: async (event) => { await keep('data', JSON.stringify(event)) },
      progress: async (progress) => { await keep('progress', JSON.stringify({ progress })) }
    }, log)
  }

  /** The run's events numbered after `after`, as they come, then the run once it ended; stops when `signal` aborts. */
  async * follow (id: string, after: number, signal: AbortSignal): AsyncGenerator<RunEvent> {
    const { ledger, pollMs } = this.#options
    let news = true
    let woken = () => {}
    const wake = () => {
      news = true
      woken()
    }
    const readers = this.#readers.get(id) ?? new Set()
    readers.add(wake)
    this.#readers.set(id, readers)
    try {
      while (!signal.aborted) {
        news = false
        // The run before its events: events kept before it ended are all read below.
        const run = await ledger.runs.get(id)
        if (run === null) return
        for (let page = await ledger.runs.eventsAfter(id, after, PAGE); page.length > 0; page = await ledger.runs.eventsAfter(id, after, PAGE)) {
          for (const event of page) {
            after = event.seq
            yield event
          }
          if (page.length < PAGE) break
        }
        if (FINISHED.includes(run.status)) {
          yield { kind: 'end', run }
          return
        }
        if (!news) await nextWake(signal, pollMs, (resolve) => { woken = resolve })
      }
    } finally {
      readers.delete(wake)
      if (readers.size === 0) this.#readers.delete(id)
    }
  }

  #wake (id: string): void {
    for (const wake of this.#readers.get(id) ?? []) wake()
  }
}

/** Resolves at the next news (`register` hands over its resolver), after `ms`, or when `signal` aborts, whichever first. */
async function nextWake (signal: AbortSignal, ms: number, register: (resolve: () => void) => void): Promise<void> {
  // Aborted while the run was read: an abort listener added now would never fire, and the reader would wait out `ms`.
  if (signal.aborted) return
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
    register(done)
  })
}
