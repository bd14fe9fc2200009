import type { ChangedBee } from '../ledger/catalog/catalog-repository.js'
import type { BeeRecord, ManagedBee } from '../schemas.js'
import type { Static } from 'typebox'
import { publishedRecord } from './published-bee.js'

/** What the owner and the operator see of a Bee. */
export function managed (record: BeeRecord, stored: ChangedBee | undefined, callsPerMinute: number | null): Static<typeof ManagedBee> {
  return {
    ...record,
    upstreamEndpoint: stored?.endpoint ?? null,
    ownerEmail: stored?.ownerEmail ?? null,
    rateLimit: callsPerMinute === null ? null : { callsPerMinute }
  }
}

/**
 * A published Bee as written, which is what every instance serves of it: built from what was stored rather than
 * read back and loaded (a query and the Bee's registration per change).
 */
export const managedPublished = (stored: ChangedBee) => managed(publishedRecord(stored), stored, stored.callsPerMinute)
