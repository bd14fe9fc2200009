/**
 * Hands preparation jobs to workers. Two implementations, chosen once at start by the database: on
 * SQLite the records are the queue (database-queue.ts); on PostgreSQL pg-boss distributes them across
 * instances (pg-boss-queue.ts). Either way the record's claim decides who runs it.
 */
export interface PreparationQueue {
  start (): Promise<void>
  /** A record was queued (submitted, edited or retried). */
  enqueue (id: string): Promise<void>
  /** Stops taking jobs; runs in progress are put back in the queue. */
  stop (): Promise<void>
}
