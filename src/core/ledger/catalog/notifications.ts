import type { Transaction } from 'kysely'
import { sql } from 'kysely'
import type { Tables } from '../tables.js'

/** How the instance that changes the catalog wakes the others; a database without notifications leaves them to their poll. */
export interface CatalogNotifications {
  /** Sends, on commit of `trx`, the version it brings the catalog to. */
  notify (trx: Transaction<Tables>, version: number): Promise<void>
  listen (onNotify: () => void, onError: (error: Error) => void): Promise<() => Promise<void>>
}

export const noNotifications: CatalogNotifications = {
  async notify () {},
  async listen () { return async () => {} }
}

/**
 * PostgreSQL LISTEN/NOTIFY on a channel of the schema's own (several deployments, or parallel tests,
 * share one server). NOTIFY is transactional: the others are woken only once the change is committed.
 * The listener holds one connection of its own, outside the pool.
 */
export function postgresNotifications (connectionString: string, schema: string): CatalogNotifications {
  const channel = `apiary_catalog_${schema}`
  return {
    async notify (trx, version) {
      await sql`SELECT pg_notify(${channel}, ${String(version)})`.execute(trx)
    },
    async listen (onNotify, onError) {
      const { default: pg } = await import('pg')
      const client = new pg.Client({ connectionString, application_name: `apiary catalog listener ${schema}` })
      client.on('error', onError)
      client.on('notification', onNotify)
      await client.connect()
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`)
      return async () => { await client.end() }
    }
  }
}
