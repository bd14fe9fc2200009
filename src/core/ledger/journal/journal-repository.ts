import type { JournalEntry } from '../../schemas.js'
import type { PageOutcome, PageRequest } from '../paging.js'

export interface Audit {
  balanceMicros: number
  /** What the journal says the balance must be: deposits − holds + voids (− charges + refunds, legacy). */
  journalMicros: number
}

/** A wallet's journal: every movement of its money, append-only. */
export interface JournalRepository {
  /** A wallet's entries, newest first, a page at a time. */
  list (walletId: string, page: PageRequest): Promise<PageOutcome<JournalEntry>>
  /** A wallet's `limit` newest entries. */
  recent (walletId: string, limit: number): Promise<JournalEntry[]>
  /** The balance next to what the journal says it must be; null when there is no such wallet. */
  audit (walletId: string): Promise<Audit | null>
}
