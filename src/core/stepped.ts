/**
 * What the core's steps that often need no I/O answer (Executor.admit, claim, limit, hold and release, the registry's
 * lookup): the value at once when none was needed (a loaded Bee, no Idempotency-Key, no limit of the Bee's own, no
 * key to free, a free Bee), else its promise. HTTP's execute routes run them from callback hooks that pass such a request on
 * without a microtask; every other caller just awaits. Kept because the free execute measured faster with it in
 * every paired run (issue 44, 2026-11-29): with these steps plain async and awaited by async hooks, callgrind counted
 * 1.44 M instead of 1.24 M instructions a request (medians of three runs each; the pairs differed by 0.4-27 %), and
 * the bench's ratio fell from 0.53 to 0.42. The paid execute, whose hold and capture dwarf a microtask, showed no
 * difference beyond its noise. docs/performance.md, "The core's steps answer at once when they can", has the runs.
 */
export type Stepped<T> = T | Promise<T>

/** `next` applied to a step's value: at once when the step answered at once, else when its promise does. */
export function afterStep<T, U> (step: Stepped<T>, next: (value: T) => Stepped<U>): Stepped<U> {
  return step instanceof Promise ? step.then(next) : next(step)
}
