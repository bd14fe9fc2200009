/**
 * Schema migrations, applied in order at start. Each runs once, inside a transaction, and is
 * recorded in schema_migrations; never edit a migration that has shipped, add a new one.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE wallets (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    balance INTEGER NOT NULL CHECK (balance >= 0),
    currency TEXT NOT NULL,
    label TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    wallet_id TEXT NOT NULL REFERENCES wallets(id),
    kind TEXT NOT NULL CHECK (kind IN ('deposit', 'charge', 'refund')),
    amount INTEGER NOT NULL CHECK (amount > 0),
    bee_id TEXT,
    request_id TEXT,
    refund_of INTEGER REFERENCES journal(id),
    created_at TEXT NOT NULL
  );
  CREATE INDEX journal_by_wallet ON journal (wallet_id, id);
  -- A charge can be refunded once, whatever races the refund path.
  CREATE UNIQUE INDEX journal_refund_once ON journal (refund_of) WHERE refund_of IS NOT NULL;
  `
]
