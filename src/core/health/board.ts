import type { BeeHealth } from '../schemas.js'
import type { BeeCounts } from './counts.js'
import { figuresOf } from './figures.js'

const sameFigures = (a: BeeHealth, b: BeeHealth) =>
  a.calls === b.calls && a.successRate === b.successRate && a.p50Ms === b.p50Ms && a.p95Ms === b.p95Ms && a.conformance === b.conformance

/**
 * Every Bee's figures as last read from the ledger, in memory: discovery reads them per request without a query.
 * A Bee's figures object is replaced only when they change, and `version` moves with any change, so rendered
 * answers can be cached against them.
 */
export class HealthBoard {
  readonly #figures = new Map<string, BeeHealth>()
  readonly #none: BeeHealth
  #version = 0

  constructor (windowMinutes: number) {
    this.#none = figuresOf(undefined, windowMinutes)
  }

  get version (): number {
    return this.#version
  }

  get windowMinutes (): number {
    return this.#none.windowMinutes
  }

  /** The Bee's figures; those of no runs when it had none in the window. */
  of (beeId: string): BeeHealth {
    return this.#figures.get(beeId) ?? this.#none
  }

  /** The Bees with a success rate in the window (those that ran), which reliability ranks first: bounded by use, not by the catalog. */
  rated (): string[] {
    const ids: string[] = []
    for (const [id, figures] of this.#figures) if (figures.successRate !== null) ids.push(id)
    return ids
  }

  /** Takes the window's counts of every Bee that ran in it (the others had none); returns whether any figure changed. */
  update (counts: readonly BeeCounts[]): boolean {
    let changed = false
    const seen = new Set<string>()
    for (const beeCounts of counts) {
      seen.add(beeCounts.beeId)
      const figures = figuresOf(beeCounts, this.windowMinutes)
      const before = this.#figures.get(beeCounts.beeId)
      if (before !== undefined && sameFigures(before, figures)) continue
      this.#figures.set(beeCounts.beeId, figures)
      changed = true
    }
    for (const beeId of this.#figures.keys()) {
      if (seen.has(beeId)) continue
      this.#figures.delete(beeId)
      changed = true
    }
    if (changed) this.#version++
    return changed
  }
}
