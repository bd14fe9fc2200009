/**
 * What this process says about its runs as they happen: a run that ended (for the calls waiting on it here), and a
 * cancel or an expiry (for the worker running it here, which stops its upstream at once instead of at its next heartbeat).
 * A run worked on by another instance is seen by polling its row instead.
 */
export class RunSignals {
  readonly #waiters = new Map<string, Set<() => void>>()
  readonly #running = new Map<string, AbortController>()
  readonly #onEnd: (id: string) => void

  /** `onEnd` is told each time a run is said to have ended here (its callbacks are due). */
  constructor (onEnd: (id: string) => void = () => {}) {
    this.#onEnd = onEnd
  }

  /** Resolves when the run ends here, or after `ms`, whichever comes first. */
  async ended (id: string, ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const waiters = this.#waiters.get(id) ?? new Set()
      const done = () => {
        clearTimeout(timer)
        waiters.delete(done)
        if (waiters.size === 0) this.#waiters.delete(id)
        resolve()
      }
      const timer = setTimeout(done, ms)
      waiters.add(done)
      this.#waiters.set(id, waiters)
    })
  }

  end (id: string): void {
    for (const done of [...this.#waiters.get(id) ?? []]) done()
    this.#onEnd(id)
  }

  track (id: string, controller: AbortController): void {
    this.#running.set(id, controller)
  }

  untrack (id: string): void {
    this.#running.delete(id)
  }

  /** Stops the run's upstream call, if this process is making it. */
  stop (id: string): void {
    this.#running.get(id)?.abort()
  }
}
