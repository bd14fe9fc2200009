import type { Logger } from './logger.js'

/** How often a line says an outage goes on. */
export const OUTAGE_REMINDER_MS = 30_000
/** The first look for a dependency's return, and the longest wait between two: a return is seen within a second. */
const FIRST_PROBE_MS = 100
const LONGEST_PROBE_MS = 1000

export interface OutageOptions {
  /** What is out, as the log lines name it: `ledger database`, `Redis`. */
  dependency: string
  /** What the service does meanwhile, said once when the outage starts. */
  meanwhile: string
  log: Logger
  /**
   * Resolves once the dependency answers again, which ends the outage; tried at once, then with a backoff
   * (100 ms doubling, at most 1 s) while it fails. Without one, only `recovered()` ends an outage.
   */
  probe?: () => Promise<void>
  remindEveryMs?: number
}

const messageOf = (error: unknown) => error instanceof Error ? error.message : String(error)

/**
 * One dependency's outages, told in the log once each: a line when one starts (the error that started it, with its
 * stack), a reminder every 30 s while it lasts, and a line when it ends, each with the counts so far (the calls refused,
 * the failures met). The failures in between, however many requests meet them, write nothing.
 */
export class Outage {
  readonly #options: OutageOptions
  #since: number | null = null
  #reason = ''
  #counts: Record<string, number> = {}
  #reminder: NodeJS.Timeout | undefined
  #probeTimer: NodeJS.Timeout | undefined
  #probeDelayMs = FIRST_PROBE_MS
  #closed = false

  constructor (options: OutageOptions) {
    this.#options = options
  }

  /** Whether an outage is on. */
  get down (): boolean {
    return this.#since !== null
  }

  /** What the outage's first failure said; empty while none is on. */
  get reason (): string {
    return this.#reason
  }

  /** Failures of the dependency (`count` of them), counted under `what`; the first starts an outage. */
  failed (error: unknown, what = 'failures', count = 1): void {
    this.#counts[what] = (this.#counts[what] ?? 0) + count
    if (this.#since !== null || this.#closed) return
    const { dependency, meanwhile, log, remindEveryMs = OUTAGE_REMINDER_MS } = this.#options
    this.#since = Date.now()
    this.#reason = messageOf(error)
    log.error({ dependency, err: error, remindEverySeconds: remindEveryMs / 1000 }, `${dependency} unavailable: ${meanwhile}`)
    this.#reminder = setInterval(() => {
      log.warn({ dependency, reason: this.#reason, downSeconds: Math.round(this.#downMs() / 1000), ...this.#counts }, `${dependency} still unavailable`)
    }, remindEveryMs)
    this.#reminder.unref()
    this.#probeDelayMs = FIRST_PROBE_MS
    this.#scheduleProbe()
  }

  /** The dependency answers again: ends the outage, if one is on, with its counts. */
  recovered (): void {
    if (this.#since === null) return
    const { dependency, log } = this.#options
    log.warn({ dependency, downMs: this.#downMs(), reason: this.#reason, ...this.#counts }, `${dependency} back`)
    clearInterval(this.#reminder)
    clearTimeout(this.#probeTimer)
    this.#since = null
    this.#reason = ''
    this.#counts = {}
  }

  /** Stops the timers: nothing more is probed or logged. */
  close (): void {
    this.#closed = true
    clearInterval(this.#reminder)
    clearTimeout(this.#probeTimer)
  }

  #downMs (): number {
    return this.#since === null ? 0 : Date.now() - this.#since
  }

  #scheduleProbe (): void {
    const { probe } = this.#options
    if (probe === undefined || this.#closed) return
    this.#probeTimer = setTimeout(() => {
      probe().then(() => { this.recovered() }, () => {
        if (this.#since === null) return
        this.#probeDelayMs = Math.min(this.#probeDelayMs * 2, LONGEST_PROBE_MS)
        this.#scheduleProbe()
      })
    }, this.#probeDelayMs)
    this.#probeTimer.unref()
  }
}
