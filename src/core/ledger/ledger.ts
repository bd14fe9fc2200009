import type { CatalogRepository } from './catalog/catalog-repository.js'
import type { EarningsRepository } from './earnings/earnings-repository.js'
import type { HealthRepository } from './health/health-repository.js'
import type { HoldRepository } from './holds/hold-repository.js'
import type { IdempotencyRepository } from './idempotency/idempotency-repository.js'
import type { JournalRepository } from './journal/journal-repository.js'
import type { OAuthRepository } from './oauth/oauth-repository.js'
import type { Dialect } from './dialect.js'
import type { PreparationRepository } from './preparations/preparation-repository.js'
import type { RunCallbackRepository } from './run-callbacks/run-callback-repository.js'
import type { RunRepository } from './runs/run-repository.js'
import type { SubscriptionRepository } from './subscriptions/subscription-repository.js'
import type { SettlementRepository } from './settlements/settlement-repository.js'
import type { SigningKeyRepository } from './signing-keys/signing-key-repository.js'
import type { TokenRepository } from './tokens/token-repository.js'
import type { WalletRepository } from './wallets/wallet-repository.js'

/**
 * The ledger: one repository per aggregate, all on one database, their implementations chosen once
 * when it is opened (see openStore). Nothing else in the service touches the database.
 */
export interface Ledger {
  readonly dialect: Dialect
  readonly wallets: WalletRepository
  readonly holds: HoldRepository
  readonly journal: JournalRepository
  /** Publishers' and the operator's earnings: what captures credited, what was paid out. */
  readonly earnings: EarningsRepository
  readonly idempotency: IdempotencyRepository
  /** Publishers, published Bees and the status of built-in Bees. */
  readonly catalog: CatalogRepository
  /** Website preparation records, which are also their jobs. */
  readonly preparations: PreparationRepository
  /** Runs of async Bees, which are also their jobs. */
  readonly runs: RunRepository
  /** Runs' completion webhooks, which are also their deliveries' jobs. */
  readonly runCallbacks: RunCallbackRepository
  /** Wallets' subscriptions to Bees priced `subscription`, and their quotas. */
  readonly subscriptions: SubscriptionRepository
  /** x402 payments settled for calls. */
  readonly settlements: SettlementRepository
  /** Verification tokens minted from wallets, and the keys they are signed with. */
  readonly tokens: TokenRepository
  readonly signingKeys: SigningKeyRepository
  /** Bee health counters: runs, failures, nonconforming answers and latency per Bee and minute. */
  readonly health: HealthRepository
  /** The OAuth authorization server's clients, grants, codes and refresh tokens. */
  readonly oauth: OAuthRepository
  /**
   * Resolves once the database answers (PostgreSQL: on a new connection); with `write`, once it takes a write too (a
   * full disk still answers reads).
   */
  ping (options?: { write?: boolean }): Promise<void>
  close (): Promise<void>
}
