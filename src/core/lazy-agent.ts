import type { Agent } from 'undici'
import type * as UndiciApi from './undici-api.js'

export type Undici = typeof UndiciApi

let loading: Promise<Undici> | undefined

/**
 * undici, imported with the first outbound request instead of at start: it is a megabyte of JavaScript, the largest
 * package a start read (47 ms of the 780 ms of CPU a start took on the AMD EPYC host, `node --cpu-prof`), and an
 * instance serves its built-in Bees without it. Node's own fetch is undici too, but a copy the service cannot give
 * a connector or a pool to.
 */
const undici = async (): Promise<Undici> => await (loading ??= import('./undici-api.js'))

/** An undici Agent and the module it came from, made with the first request through them (see undici). */
export class LazyAgent {
  readonly #make: (undici: Undici) => Agent
  #made: Promise<{ undici: Undici, agent: Agent }> | undefined

  constructor (make: (undici: Undici) => Agent) {
    this.#make = make
  }

  async get (): Promise<{ undici: Undici, agent: Agent }> {
    return await (this.#made ??= undici().then((module) => ({ undici: module, agent: this.#make(module) })))
  }

  /** Closes the Agent's connections; one never made has none. */
  async close (): Promise<void> {
    if (this.#made !== undefined) await (await this.#made).agent.close()
  }
}
