import { type Kysely, sql } from 'kysely'
import { listenOn } from '../listen.js'
import type { Tables } from '../tables.js'

/** How the instance where a run has news (an event, its end) tells the others; a database without notifications cannot. */
export interface RunNotifications {
  notify (runId: string): Promise<void>
  /** `onNotify` gets the run's id; resolves to what stops listening. */
  listen (onNotify: (runId: string) => void, onError: (error: Error) => void): Promise<() => Promise<void>>
}

/** SQLite: one instance, whose readers are woken in the process (RunEventBus). */
export const noRunNotifications: RunNotifications = {
  async notify () {},
  async listen () { return async () => {} }
}

/**
 * PostgreSQL LISTEN/NOTIFY on a channel of the schema's own (several deployments, or parallel tests, share one server),
 * the run's id as the payload. The listener holds one connection of its own (pg's Client), outside the pool.
 */
export function postgresRunNotifications (db: Kysely<Tables>, connectionString: string, schema: string): RunNotifications {
  const channel = `apiary_runs_${schema}`
  return {
    async notify (runId) {
      await sql`SELECT pg_notify(${channel}, ${runId})`.execute(db)
    },
    listen: async (onNotify, onError) => await listenOn(connectionString, channel, `apiary run listener ${schema}`, (payload) => {
      if (payload !== undefined) onNotify(payload)
    }, onError)
  }
}
