import type { Publisher } from './ledger/catalog/catalog-repository.js'
import type { Logger } from './logger.js'

/** Whom a use case acts for: the operator (the admin token) or a publisher (its key). */
export type Principal = { kind: 'admin' } | { kind: 'publisher', publisher: Publisher }

/** Who calls a use case, and where its lines go: on HTTP, the request's logger, so they carry the request's id. */
export interface Caller {
  principal: Principal
  log: Logger
}
