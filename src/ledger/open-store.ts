import { openSqliteStore } from './sqlite-store.js'
import type { LedgerStore } from './store.js'

/** Chooses the ledger backend from DATABASE_URL: a path, `sqlite:PATH`, or `:memory:`. */
export function openStore (databaseUrl: string): LedgerStore {
  const path = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') : databaseUrl
  return openSqliteStore(path)
}
