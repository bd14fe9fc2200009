/** The streams this instance holds open (a stream Bee's calls, runs' events), up to STREAM_MAX_OPEN. */
export class OpenStreams {
  readonly #max: number
  #open = 0

  constructor (max: number) {
    this.#max = max
  }

  get open (): number {
    return this.#open
  }

  /** Takes a place; the function that gives it back (once, whatever calls it again), or null when none is free. */
  take (): (() => void) | null {
    if (this.#open >= this.#max) return null
    this.#open++
    let given = false
    return () => {
      if (given) return
      given = true
      this.#open--
    }
  }
}
