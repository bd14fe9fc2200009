import { type RawBuilder, sql } from 'kysely'
import { listenOn } from '../listen.js'

/** How the instance that changes the catalog wakes the others; a database without notifications leaves them to their poll. */
export interface CatalogNotifications {
  /**
   * What the statement that takes a new catalog version returns beside it, to send that version to the other
   * instances on commit; null where there is nothing to send. `version` is the new version's column.
   */
  sent (version: RawBuilder<number>): RawBuilder<unknown> | null
  /** `onNotify` gets the version the change brought the catalog to, or null when the notification does not say. */
  listen (onNotify: (version: number | null) => void, onError: (error: Error) => void): Promise<() => Promise<void>>
}

export const noNotifications: CatalogNotifications = {
  sent: () => null,
  async listen () { return async () => {} }
}

/**
 * PostgreSQL LISTEN/NOTIFY on a channel of the schema's own (several deployments, or parallel tests,
 * share one server). NOTIFY is transactional: the others are woken only once the change is committed.
 * It is sent by the statement that takes the version, which saves a round trip while that version's
 * row, which every change waits for, is locked. The listener holds one connection of its own, outside the pool.
 */
export function postgresNotifications (connectionString: string, schema: string): CatalogNotifications {
  const channel = `apiary_catalog_${schema}`
  return {
    sent: (version) => sql`pg_notify(${channel}, ${version}::text)`,
    listen: async (onNotify, onError) => await listenOn(connectionString, channel, `apiary catalog listener ${schema}`, (payload) => {
      const version = Number(payload)
      onNotify(payload === undefined || !Number.isSafeInteger(version) ? null : version)
    }, onError)
  }
}
