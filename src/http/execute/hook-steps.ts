import type { Step } from '../../core/execution/execution.js'
import type { Stepped } from '../../core/stepped.js'

/**
 * Goes on with a pipeline step's value inside a callback hook: at once when the step needed no promise (a loaded Bee,
 * no Idempotency-Key, no limit of its own: the usual call passes those hooks without a microtask each), else once it
 * settles; a step that rejects ends the hook with its error.
 */
export function whenStepped<T> (step: Stepped<T>, done: (error: Error) => void, next: (value: T) => void): void {
  if (step instanceof Promise) step.then(next, done)
  else next(step)
}

/** Ends a callback hook with a step's outcome: its refusal, or on to the next hook. */
export function endWithStep (step: Stepped<Step>, done: (error?: Error) => void): void {
  whenStepped(step, done, (stepped) => { done(stepped.ok ? undefined : stepped.error) })
}
