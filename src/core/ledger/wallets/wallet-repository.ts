import type { Wallet } from '../../schemas.js'
import type { PageOutcome, PageRequest } from '../paging.js'

export interface NewWallet {
  id: string
  tokenHash: string
  micros: number
  currency: string
  label: string | null
  /** The request that created it, journaled with the opening deposit. */
  requestId?: string | null
}

/** Why a balance may not grow: it would pass MAX_BALANCE. */
export type BalanceLimitExceeded = { ok: false, reason: 'BALANCE_LIMIT_EXCEEDED' }

export type CreateOutcome = { ok: true, wallet: Wallet } | BalanceLimitExceeded

export type DepositOutcome = { ok: true, wallet: Wallet } | BalanceLimitExceeded | { ok: false, reason: 'WALLET_NOT_FOUND' }

/** Wallets and their balances, in integer micro-units; holds move money out of them (see HoldRepository). */
export interface WalletRepository {
  /** Creates a wallet with its opening balance, journaled as a deposit. */
  create (wallet: NewWallet): Promise<CreateOutcome>
  get (id: string): Promise<Wallet | null>
  getByToken (tokenHash: string): Promise<Wallet | null>
  /** The id of the wallet with this token: one indexed read, without the balance and holds getByToken adds up. */
  idByToken (tokenHash: string): Promise<string | null>
  /** Wallets in id order. */
  list (page: PageRequest): Promise<PageOutcome<Wallet>>
  setFrozen (walletId: string, frozen: boolean): Promise<Wallet | null>
  /** Credits the wallet and journals the deposit, unless that would take its balance above the cap. */
  deposit (walletId: string, micros: number, requestId: string | null): Promise<DepositOutcome>
}
