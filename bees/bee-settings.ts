import type { Static, TObject } from 'typebox'

/**
 * What a built-in Bee reads from the environment, owned by its folder: src/config.ts adds every Bee's schema to the
 * service's, so they are validated together at start and a bad value stops it with a line naming the variable.
 */
export interface BeeSettings<T extends TObject> {
  /** Its variables, each with a description, and a default unless it may stay unset. */
  schema: T
  /** What the schema cannot state, one message per problem, each naming its variable. */
  problems: (settings: Static<T>) => string[]
  /**
   * Its time limits on what a call waits for (an upstream), in ms by variable: an execution can last that long, so
   * an Idempotency-Key's claim and a hold must outlive them.
   */
  timeoutsMs: (settings: Static<T>) => Record<string, number>
}
