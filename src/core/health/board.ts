import type { BeeHealth } from '../schemas.js'
import type { BeeCounts } from './counts.js'
import { figuresOf } from './figures.js'

/** Equal counts give equal figures; and a run always changes `calls`, so unequal counts are new figures. */
const sameCounts = (a: BeeCounts, b: BeeCounts) =>
  a.calls === b.calls && a.failures === b.failures && a.nonconforming === b.nonconforming && a.latency.every((count, bucket) => count === b.latency[bucket])

/**
 * Every Bee's counts as last read from the ledger, in memory: discovery reads their figures per request without a
 * query. A Bee's figures are worked out when first asked for (a start reads every Bee that ran in the window, and
 * most are not asked for soon) and kept until its counts change; the same figures object until then, and `version`
 * moves with any change, so rendered answers can be cached against them.
 */
export class HealthBoard {
  readonly #counts = new Map<string, BeeCounts>()
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
    let figures = this.#figures.get(beeId)
    if (figures !== undefined) return figures
    const counts = this.#counts.get(beeId)
    if (counts === undefined) return this.#none
    figures = figuresOf(counts, this.windowMinutes)
    this.#figures.set(beeId, figures)
    return figures
  }

  /** The Bees with a success rate in the window (those that ran), which reliability ranks first: bounded by use, not by the catalog. */
  rated (): string[] {
    const ids: string[] = []
    for (const [id, counts] of this.#counts) if (counts.calls > 0) ids.push(id)
    return ids
  }

  /**
   * Takes the window's counts of the Bees that ran in it; returns whether any figure changed. Without `only`, the
   * counts are every Bee's and a Bee absent from them had none; with it, they are those of the Bees in `only`, and
   * a Bee of `only` absent from them had none (the others keep their figures).
   */
  update (counts: readonly BeeCounts[], only?: ReadonlySet<string>): boolean {
    let changed = false
    const seen = new Set<string>()
    for (const beeCounts of counts) {
      seen.add(beeCounts.beeId)
      const before = this.#counts.get(beeCounts.beeId)
      if (before !== undefined && sameCounts(before, beeCounts)) continue
      this.#counts.set(beeCounts.beeId, beeCounts)
      this.#figures.delete(beeCounts.beeId)
      changed = true
    }
    for (const beeId of only ?? this.#counts.keys()) {
      if (seen.has(beeId) || !this.#counts.delete(beeId)) continue
      this.#figures.delete(beeId)
      changed = true
    }
    if (changed) this.#version++
    return changed
  }
}
