import { writeFileSync } from 'node:fs'

/** One step's time summed over a run. */
export interface SpanTotal {
  count: number
  totalMs: number
}

/** What a bench build writes at close (BENCH_SPANS_FILE): every step's total, and how many requests they cover. */
export interface SpanReport {
  requests: number
  /** Fastify's own time per request from routing to the answer's end (reply.elapsedTime), summed. */
  requestMs: number
  steps: Record<string, SpanTotal>
}

/**
 * Time per step of the request path summed over a run, for the bench's breakdown table (bench/breakdown.ts):
 * the bench build (BENCH_SPANS_FILE set) wraps hooks and steps with these spans; without it nothing is wrapped
 * and none of this runs. Spans are wall time until the step ends, so they mean CPU time only under a load of one
 * connection, which is how the breakdown is measured.
 */
export class Spans {
  #report: SpanReport = { requests: 0, requestMs: 0, steps: {} }
  /** Timed steps started and not yet ended: under one connection, the steps the code running now is inside. */
  #open = 0

  add (step: string, ms: number): void {
    const total = this.#report.steps[step] ??= { count: 0, totalMs: 0 }
    total.count++
    total.totalMs += ms
  }

  request (ms: number): void {
    this.#report.requests++
    this.#report.requestMs += ms
  }

  /** Whether the code running now is inside a timed step (under one connection; see requestStarted). */
  get inside (): boolean {
    return this.#open > 0
  }

  /** A request begins: a step of the one before it that never ended (a hook that answered early, without `done`) is forgotten. */
  requestStarted (): void {
    this.#open = 0
  }

  /** Forgets what was counted so far (after a warm-up). */
  reset (): void {
    this.#report = { requests: 0, requestMs: 0, steps: {} }
  }

  /**
   * The function timed as `step`: until it returns, or until the promise it returns settles, or, when `callbackAt`
   * is given, until the callback at that argument is called (Fastify's `done`).
   */
  timed<F extends (...args: never[]) => unknown> (step: string, fn: F, callbackAt?: number): F {
    const spans = this
    const wrapped = function (this: unknown, ...args: unknown[]): unknown {
      const started = performance.now()
      spans.#open++
      const end = () => {
        spans.#open--
        spans.add(step, performance.now() - started)
      }
      const done = callbackAt === undefined ? undefined : args[callbackAt]
      if (typeof done === 'function') {
        args[callbackAt as number] = function (this: unknown, ...results: unknown[]) {
          end()
          return done.apply(this, results)
        }
      }
      const result = (fn as unknown as (...a: unknown[]) => unknown).apply(this, args)
      if (typeof done === 'function' && !isThenable(result)) return result
      if (isThenable(result)) return result.then((value) => { end(); return value }, (error: unknown) => { end(); throw error })
      end()
      return result
    }
    // Fastify tells a hook's style by its arity.
    Object.defineProperty(wrapped, 'length', { value: fn.length })
    return wrapped as unknown as F
  }

  /** Times every method of `target` (own and inherited, not Object's) as `${prefix}.${method}`. */
  timeMethods (prefix: string, target: object): void {
    const names = new Set<string>()
    for (let proto: object | null = target; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
      for (const name of Object.getOwnPropertyNames(proto)) names.add(name)
    }
    const object = target as Record<string, unknown>
    for (const name of names) {
      const method = object[name]
      if (name === 'constructor' || typeof method !== 'function') continue
      object[name] = this.timed(`${prefix}.${name}`, (method as (...args: never[]) => unknown).bind(target))
    }
  }

  write (file: string): void {
    writeFileSync(file, JSON.stringify(this.#report))
  }
}

function isThenable (value: unknown): value is Promise<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
}
