import type { LogFn } from 'pino'
import { RetryLaterError } from './errors.js'
import { storeFaultOf, type StoreFaultCode } from './ledger/store-faults.js'
import type { Logger } from './logger.js'
import { Outage } from './outage.js'

/** What a call refused for the ledger's sake is told to wait: the outage's probe looks again within a second. */
export const STORE_RETRY_AFTER_SECONDS = 1

const RETRY = `Retry in ${STORE_RETRY_AFTER_SECONDS} s (Retry-After), with the same Idempotency-Key if you sent one: a call charged ` +
  'before the failure replays its answer, and a hold left unsettled is released (HOLD_TIMEOUT_SECONDS).'

/** How long after a probe that passed failures still count as the one the probe was for, without a line of their own. */
const SAME_EVENT_MS = 1000

/** The 503 a call gets while the ledger database is down or full. */
export function storeRefusal (code: StoreFaultCode): RetryLaterError {
  return code === 'STORE_FULL'
    ? new RetryLaterError('STORE_FULL', `The ledger database's disk is full, so this call could not be recorded. ${RETRY}`, STORE_RETRY_AFTER_SECONDS)
    : new RetryLaterError('STORE_UNAVAILABLE', `The ledger database cannot be reached, so this call could not be completed. ${RETRY}`, STORE_RETRY_AFTER_SECONDS)
}

export interface StoreHealthOptions {
  log: Logger
  /** Resolves once the database answers; with `write`, once it takes a write (a full disk still reads). */
  probe: (write: boolean) => Promise<void>
}

/** Failures met before the database was asked whether it is down, by what failed. */
type Counts = Record<string, number>

/**
 * Whether the ledger database answers, as the service finds out: a failure that is the database's (store-faults.ts)
 * becomes a 503 for the call that met it, and a count. The first one has the database asked at once whether it is
 * down: a connection the server ended (an operator, a pooler reaping idle ones) fails the calls that were on it while
 * the database itself answers, and that is one warning line. Down, it is an outage: a line when it starts, a reminder
 * every 30 s and a line when it ends, with the counts (see Outage), and the database probed with a backoff of at most
 * a second meanwhile, so its return is seen within one. Calls are never held back: each one tries the database
 * itself, and service resumes with the first that gets through.
 */
export class StoreHealth {
  readonly #outage: Outage
  readonly #options: StoreHealthOptions
  #fault: StoreFaultCode | null = null
  /** The failures met while the database is being asked whether it is down; null while it is not. */
  #suspected: Counts | null = null

  constructor (options: StoreHealthOptions) {
    this.#options = options
    this.#outage = new Outage({
      dependency: 'ledger database',
      meanwhile: 'calls that need it answer 503 STORE_UNAVAILABLE or STORE_FULL with Retry-After until it is back',
      log: options.log,
      probe: async () => {
        await options.probe(this.#fault === 'STORE_FULL')
        this.#fault = null
      }
    })
  }

  /** What is wrong while the database is down (STORE_UNAVAILABLE) or full (STORE_FULL); null while it answers. */
  get fault (): StoreFaultCode | null {
    return this.#outage.down ? this.#fault : null
  }

  /** The 503 for a call that failed on the database, counted; null when the failure is not the database's. */
  refusal (error: unknown): RetryLaterError | null {
    const code = this.#count(error, 'refusedCalls')
    return code === null ? null : storeRefusal(code)
  }

  /** A failure of background work (a sweep, a poll), counted; false when it is not the database's, for the caller to log. */
  absorbed (error: unknown): boolean {
    return this.#count(error, 'failures') !== null
  }

  /** The server closed a connection of the service's (the pool's, the catalog listener's, pg-boss's): counted as the others. */
  connectionLost (error: Error): void {
    this.#count(error, 'connectionsLost')
  }

  /**
   * Asks the database now, as a readiness probe does (its write, while full): null when it answers, which ends an outage;
   * its fault otherwise, an outage then on. A failure that is not the database's is thrown.
   */
  async check (): Promise<StoreFaultCode | null> {
    try {
      await this.#options.probe(this.fault === 'STORE_FULL')
    } catch (error) {
      const code = storeFaultOf(error)
      if (code === null) throw error
      this.#fault = code
      this.#outage.failed(error)
      return code
    }
    this.#fault = null
    this.#outage.recovered()
    return null
  }

  /**
   * `log`, for work that touches the ledger in the background: a line whose `err` is the database being down counts
   * toward the outage instead of being written.
   */
  logger (log: Logger): Logger {
    const counted = (write: LogFn): LogFn => ((fields: unknown, ...rest: unknown[]) => {
      if (typeof fields === 'object' && fields !== null && this.absorbed((fields as { err?: unknown }).err)) return
      write.apply(log, [fields, ...rest] as Parameters<LogFn>)
    }) as LogFn
    return {
      fatal: log.fatal.bind(log),
      error: counted(log.error),
      warn: counted(log.warn),
      info: log.info.bind(log),
      debug: log.debug.bind(log),
      trace: log.trace.bind(log)
    }
  }

  close (): void {
    this.#outage.close()
  }

  #count (error: unknown, what: string): StoreFaultCode | null {
    const code = storeFaultOf(error)
    if (code === null) return null
    if (this.#outage.down) {
      this.#fault = code
      this.#outage.failed(error, what)
      return code
    }
    if (this.#suspected !== null) {
      this.#suspected[what] = (this.#suspected[what] ?? 0) + 1
      return code
    }
    const suspected: Counts = { [what]: 1 }
    this.#suspected = suspected
    this.#options.probe(code === 'STORE_FULL').then(() => {
      this.#options.log.warn({ reason: (error as Error).message, ...suspected },
        'ledger database failed, and answers again (a connection it closed is opened again as needed)')
      // The server ends every connection at once, but an idle one's error may be told after the probe passed: the
      // same event, so no second line for it. A database that does go down meanwhile is probed at the next failure.
      setTimeout(() => { this.#suspected = null }, SAME_EVENT_MS).unref()
    }, (probeError: unknown) => {
      // The probe's own failure says what is wrong now (the server refusing connections), where the first was a symptom.
      const now = storeFaultOf(probeError)
      this.#fault = now ?? code
      const cause = now === null ? error : probeError
      for (const [counted, count] of Object.entries(suspected)) this.#outage.failed(cause, counted, count)
      this.#suspected = null
    })
    return code
  }
}
