/**
 * What an instance loads after it listens (the Bees' models), so that start-up is not their load time: /health
 * answers as soon as the port is open, /ready once every load is in. Each load runs once; whoever needs one before
 * it is in (a call to that Bee) starts it if need be and waits for it.
 */
export class WarmUp {
  readonly #loads = new Map<string, { load: () => Promise<void>, done: Promise<void> | null, loaded: boolean }>()

  /** Registers a load by name; the function returned resolves once it is in, starting it if nothing has yet. */
  add (name: string, load: () => Promise<void>): () => Promise<void> {
    if (this.#loads.has(name)) throw new Error(`warm-up: ${name} is registered twice`)
    const entry = { load, done: null as Promise<void> | null, loaded: false }
    this.#loads.set(name, entry)
    return () => this.#started(entry)
  }

  /** Starts every load not yet started; resolves once all are in, rejects with the first that failed. */
  async start (): Promise<void> {
    await Promise.all([...this.#loads.values()].map((entry) => this.#started(entry)))
  }

  /** The names of the loads not in yet, in the order they were added. */
  pending (): string[] {
    return [...this.#loads].filter(([, entry]) => !entry.loaded).map(([name]) => name)
  }

  #started (entry: { load: () => Promise<void>, done: Promise<void> | null, loaded: boolean }): Promise<void> {
    // A load that failed is tried again by the next caller, not remembered as failed for the life of the process.
    entry.done ??= entry.load().then(() => { entry.loaded = true }, (error: unknown) => {
      entry.done = null
      throw error
    })
    return entry.done
  }
}
