import type { PageOutcome, PageRequest } from '../paging.js'

/** A verification token as the ledger keeps it: the authority on its caps, scope, spend and revocation. */
export interface WalletToken {
  id: string
  walletId: string
  parentId: string | null
  /** `/root/…/id/`: the ids of its ancestors and itself, root first. */
  path: string
  capMicros: number
  spentMicros: number
  perCallCapMicros: number | null
  /** The Bee ids and categories it may pay for; null: any. */
  bees: string[] | null
  categories: string[] | null
  label: string | null
  expiresAt: string
  revokedAt: string | null
  createdAt: string
}

export type NewWalletToken = Omit<WalletToken, 'path' | 'spentMicros' | 'revokedAt' | 'createdAt'>

/** The ids a token's path lists: its ancestors, root first, then itself. */
export const lineageOf = (path: string): string[] => path.split('/').filter((id) => id.length > 0)

/** Verification tokens; their spend moves with holds (see HoldRepository). */
export interface TokenRepository {
  /** Stores a token; a child's path extends its parent's. */
  create (token: NewWalletToken, parentPath: string | null): Promise<WalletToken>
  get (id: string): Promise<WalletToken | null>
  /** The wallet's tokens whose path starts with `under` (a token and its descendants), or all of them; in id order. */
  list (walletId: string, under: string | null, page: PageRequest): Promise<PageOutcome<WalletToken>>
  /** Revokes, in one statement, every token of the wallet whose path starts with `path` that is not revoked yet; how many. */
  revoke (walletId: string, path: string): Promise<number>
}
