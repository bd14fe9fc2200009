import { type QueryCreator, sql } from 'kysely'
import type { Tables } from '../tables.js'
import type { CatalogNotifications } from './notifications.js'

/** Takes the next catalog version (and, where there are notifications, sends it on commit). */
export function versionBump (notifications: CatalogNotifications) {
  return (query: QueryCreator<Tables>) => {
    const taken = query.updateTable('catalog_version').set((eb) => ({ version: eb('version', '+', 1) })).where('id', '=', 1)
    const notice = notifications.sent(sql.ref<number>('version'))
    return notice === null ? taken.returning('version') : taken.returning(['version', notice.as('notified')])
  }
}
