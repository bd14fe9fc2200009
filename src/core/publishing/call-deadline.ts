import { EventEmitter } from 'node:events'

/**
 * The end of one upstream request: its time limit, or the cancel of the run it serves (`run`), whichever comes first.
 * undici takes an EventEmitter as a request's signal, with `aborted` read as an AbortSignal's; an AbortController with
 * its EventTarget listener (and AbortSignal.any for a run) cost a proxied call about 13 µs of CPU, most of what its
 * time limit cost (docs/performance.md, "The proxied call").
 */
export class CallDeadline extends EventEmitter {
  /** Read by undici: a request whose signal is aborted already is refused at once. */
  aborted = false
  /** Whether the time limit ended it, not a cancel. */
  expired = false
  readonly #timer: NodeJS.Timeout
  readonly #run: AbortSignal | undefined
  readonly #cancel = () => { this.#abort() }

  constructor (limitMs: number, run: AbortSignal | undefined) {
    super()
    this.#timer = setTimeout(() => {
      this.expired = true
      this.#abort()
    }, limitMs)
    this.#run = run
    if (run?.aborted === true) this.aborted = true
    else run?.addEventListener('abort', this.#cancel, { once: true })
  }

  #abort (): void {
    if (this.aborted) return
    this.aborted = true
    this.emit('abort')
  }

  /** Once the answer is read or the request failed: the timer and the run's listener go (a timer left would hold the call until it fires). */
  clear (): void {
    clearTimeout(this.#timer)
    this.#run?.removeEventListener('abort', this.#cancel)
  }
}
