import type { Generated } from 'kysely'
import type { LatencyColumn } from './health/columns.js'
import type { PreparationStatus } from '../preparations/schemas.js'
import type { CallbackFormat } from './run-callbacks/run-callback-repository.js'
import type { RunEventKind, RunStatus } from '../runs/schemas.js'
import type { BeeStatus, ExecutionMode } from '../schemas.js'

/**
 * The stored tables, as Kysely sees them. Money columns are integer micro-units; times are ISO 8601
 * UTC strings, which sort and compare correctly as text on both backends.
 */
export interface Tables {
  /** The OAuth authorization server's models (oidc-provider's), by model name and id. */
  oauth_models: {
    model: string
    id: string
    /** JSON text: the model's payload. */
    payload: string
    grant_id: string | null
    uid: string | null
    expires_at: string | null
    consumed_at: string | null
  }
  wallets: {
    id: string
    token_hash: string
    balance: number
    currency: string
    label: string | null
    frozen: number
    created_at: string
  }
  journal: {
    id: Generated<number>
    wallet_id: string
    /** charge and refund are legacy (before holds): still read, never written. */
    kind: JournalKind
    amount: number
    bee_id: string | null
    request_id: string | null
    idempotency_key: string | null
    refund_of: number | null
    /** On a capture or void: the journal id of the hold it settles (unique: a hold is settled once). */
    hold_id: Generated<number | null>
    created_at: string
  }
  /** The state of each hold; its id is the id of the hold's journal row. */
  holds: {
    id: number
    wallet_id: string
    amount: number
    state: HoldState
    /** When the sweeper may void it if it is still pending. */
    expires_at: string
    /** The verification token that paid, whose spend (and its ancestors') a void gives back; null for a wallet key. */
    token_id: Generated<string | null>
    /** The earnings account its capture credits (a publisher id, or 'operator'), fixed when it is placed. */
    payee: Generated<string>
  }
  /** Verification tokens: budgets minted from a wallet (see TokenRepository). */
  wallet_tokens: {
    id: string
    wallet_id: string
    parent_id: string | null
    /** The ids from the root token down to this one: `/root/child/`; a descendant's path starts with it. */
    path: string
    cap: number
    spent: Generated<number>
    per_call_cap: number | null
    /** JSON text: the Bee ids and categories the token may pay for; null: any. */
    bees: string | null
    categories: string | null
    label: string | null
    expires_at: string
    revoked_at: string | null
    created_at: string
  }
  /** The Ed25519 keys tokens are signed with, one per rotation slot. */
  signing_keys: {
    kid: string
    /** `<rotation seconds>:<slot number>`: unique, so instances that rotate at once keep one key. */
    slot: string
    /** JSON text: the public JWK. */
    public_jwk: string
    /** The private JWK, sealed with SECRETS_KEY (SecretBox). */
    private_key: string
    created_at: string
    /** When no token it signed can still be valid: it leaves the JWKS then. */
    retire_at: string
  }
  publishers: {
    id: string
    email: string
    name: string
    key_hash: string
    created_at: string
    /** How many published Bees it has, kept by triggers on published_bees (see catalogOwnerCountMigration). */
    bee_count: Generated<number>
  }
  published_bees: {
    id: string
    owner_id: string
    owner_email: string
    name: string
    description: string
    category: string
    colony: string
    endpoint: string
    /** JSON text: the converted draft-07 schemas and the primaryServices list. */
    input_schema: string
    output_schema: string
    primary_services: string
    pricing_type: 'free' | 'pay-per-use' | 'subscription'
    cost_micros: number
    /** JSON text: the SubscriptionPlan of a Bee priced `subscription`; null otherwise. */
    plan: Generated<string | null>
    currency: string
    status: BeeStatus
    status_message: string | null
    sunset_at: string | null
    /** The publisher's limit of calls a minute to the Bee, all callers together; null: none. */
    calls_per_minute: number | null
    /** How a call runs (sync, async or stream); the limit of one run, and a stream's event schema (JSON text). */
    execution_mode: Generated<ExecutionMode>
    max_run_seconds: Generated<number | null>
    event_schema: Generated<string | null>
    /** The HMAC key the registry signs calls with: it must be usable, so it is stored encrypted (SecretBox), not hashed. */
    signing_secret: string
    /** After a rotation: the replaced signing secret (encrypted too), used until previous_secret_expires_at. */
    previous_signing_secret: string | null
    previous_secret_expires_at: string | null
    /** JSON text: an imported OpenAPI operation's RequestMapping; null for a Bee that speaks Apiary's own contract. */
    upstream_mapping: Generated<string | null>
    /** The imported upstream's credential, encrypted (SecretBox) like the signing secret; null without one. */
    upstream_credential: Generated<string | null>
    version: number
    /** The Bee's semantic version (its schemas and endpoint); its earlier ones are in bee_versions. */
    semver: Generated<string>
    created_at: string
    updated_at: string
    /** The catalog version of the row's last change: instances read only rows changed since the version they saw. */
    change_seq: number
  }
  runs: {
    id: string
    bee_id: string
    owner_hash: string | null
    key_hash: string | null
    status: RunStatus
    /** JSON text: the validated input, forwarded again if the run is taken over. */
    input: string
    idempotency_key: string | null
    /** What makes a retry under the same key the same request (requestHashOf). */
    request_hash: string | null
    hold_id: number | null
    request_id: string
    progress: number | null
    /** The Honey envelope's bytes once the run succeeded. */
    honey: string | null
    /** JSON text: { code, message }. */
    error: string | null
    attempts: number
    max_run_seconds: number
    run_token: string | null
    lease_until: string | null
    created_at: string
    started_at: string | null
    finished_at: string | null
    expires_at: string
    updated_at: string
  }
  run_events: {
    run_id: string
    /** 1, 2, ... within the run: the event's id on the wire (Last-Event-ID). */
    seq: number
    kind: RunEventKind
    /** JSON text: the event as the Bee sent it, or { progress }. */
    data: string
    created_at: string
  }
  /** Completion webhooks of runs, which are also their deliveries' jobs (see RunCallbackRepository). */
  run_callbacks: {
    id: string
    run_id: string
    url: string
    /** The whsec_ secret deliveries are signed with, sealed (SecretBox) under the callback's id. */
    secret: string
    /** Sent back with every delivery (A2A's push notification token), sealed like the secret; null without one. */
    token: string | null
    state: 'pending' | 'delivered' | 'failed'
    attempts: number
    /** When the next attempt is due; null before the first (due once the run ended). */
    next_attempt_at: string | null
    lease_until: string | null
    /** The receiver's HTTP status at the last attempt; null when it did not answer. */
    last_status: number | null
    last_error: string | null
    created_at: string
    delivered_at: string | null
    /** What a delivery's body is: 'webhook' (the run), 'a2a' or 'a2a-0.3' (A2A's task, in that version's shape). */
    format: Generated<CallbackFormat>
    /** A2A's push notification config id, unique within its run; null for a run webhook. */
    config_id: string | null
    /** The A2A task id its caller knows, sealed like the secret (a free Bee's carries its run key); null for a run webhook. */
    task_id: string | null
    /** The Authorization scheme to send (A2A's authentication.scheme); null: none. */
    auth_scheme: string | null
    /** Its credentials, sealed like the secret. */
    auth_credentials: string | null
  }
  builtin_bee_states: {
    id: string
    status: BeeStatus
    status_message: string | null
    sunset_at: string | null
    updated_at: string
    change_seq: number
  }
  /** A removed Bee's tombstone, so instances that loaded it drop it. */
  /** A published Bee's earlier versions, each as it was when the next replaced it (see the 0022 migration). */
  bee_versions: {
    bee_id: string
    semver: string
    endpoint: string
    /** JSON text, as published_bees'. */
    input_schema: string
    output_schema: string
    /** When the next version replaced it. */
    replaced_at: string
  }
  catalog_removals: {
    id: string
    change_seq: number
  }
  /** The search index: one row per Bee, published or built-in (see catalogSearchMigration). */
  catalog_search: {
    id: string
    name: string
    category: string
    colony: string
    description: string
  }
  /** One row: bumped by every change to the catalog, so instances notice changes by polling one number. */
  catalog_version: {
    id: number
    version: number
  }
  idempotency_keys: {
    scope: string
    key: string
    request_hash: string
    state: 'in-flight' | 'done'
    response_status: number | null
    response_body: string | null
    locked_at: string
    expires_at: string
    /** The hold the execution under this key placed, so a retry that takes the claim over reuses it. */
    hold_id: Generated<number | null>
  }
  /** Website preparation records, which are also their jobs (see PreparationRepository). */
  preparations: {
    id: string
    owner_id: string
    owner_email: string
    name: string
    website_url: string
    business_name: string
    description: string
    /** JSON text: an array of strings. */
    primary_services: string
    target_audience: string
    notes: string
    status: PreparationStatus
    /** JSON text: OutputFiles, or null before any run produced them. */
    output_files: string | null
    /** JSON text: Progress. */
    progress: string
    /** JSON text: {code, message} of the last failure, or null. */
    error: string | null
    attempts: number
    run_after: string
    /** The claim of the run in progress: only the run holding it writes progress and outcome. */
    run_token: string | null
    /** A running record whose lease has passed was left by a dead worker, and may be claimed again. */
    lease_until: string | null
    created_at: string
    updated_at: string
  }
  /**
   * Earnings entries, append-only: an account's balance is the sum of its credits (sale, fee, x402,
   * opening) less its payouts. See EarningsRepository.
   */
  earnings: {
    id: Generated<number>
    /** A publisher id, or 'operator'. */
    account: string
    currency: string
    kind: EarningsKind
    /** Credited to the account (a sale's: net of the fee), or paid out of it. */
    amount: number
    /** On a sale or x402 sale: the platform fee withheld from it (credited to the operator's account). */
    fee: number
    bee_id: string | null
    /** On a sale or fee: the hold whose capture it is. */
    hold_id: number | null
    request_id: string | null
    /** A payout's reference (a bank transfer id); an x402 sale's payment key. */
    reference: string | null
    created_at: string
  }
  /** One row per account and currency that was ever paid out: payouts lock it, so concurrent ones take turns. */
  earnings_accounts: {
    account: string
    currency: string
  }
  /** Subscriptions to Bees priced `subscription`: see SubscriptionRepository. */
  subscriptions: {
    id: string
    wallet_id: string
    bee_id: string
    /** The earnings account each period's price credits. */
    payee: string
    currency: string
    period_price: number
    period_seconds: number
    /** Calls included per period. */
    included: number
    /** Price of a call past the included ones; null: refused until the period resets. */
    overage: number | null
    period_start: string
    period_end: string
    /** Included calls taken in the current period. */
    used: number
    state: 'active' | 'canceled' | 'lapsed' | 'ended'
    created_at: string
  }
  /** Calls paid for by a subscription's quota: see subscriptionCallsMigration. */
  subscription_calls: {
    id: Generated<number>
    subscription_id: string
    wallet_id: string
    bee_id: string
    /** The verification token the call presented; null: the wallet key. */
    token_id: string | null
    request_id: string | null
    /** The period the call counted in: a give-back counts only while it is the current one. */
    period_end: string
    /** When a failed call gave it back to the quota. */
    returned_at: string | null
    created_at: string
  }
  /** Bee health: runs counted per minute (since the Unix epoch) and Bee, added to by every instance. */
  bee_health: {
    minute: number
    bee_id: string
    calls: number
    failures: number
    nonconforming: number
    /** The bee_health_version of the last write to this row. */
    version: number
  } & Record<LatencyColumn, number>
  /** One row: the number of the last write to bee_health (see the 0019 migration). */
  bee_health_version: {
    id: number
    version: number
  }
  /** x402 payments, settled once each (payment_key is unique): the journal of money that never touched a wallet. */
  x402_settlements: {
    id: Generated<number>
    payment_key: string
    bee_id: string
    request_id: string
    network: string
    asset: string
    /** Atomic units of the asset, as text: an 18-decimal token's amounts exceed what a 64-bit integer column promises JavaScript. */
    amount: string
    pay_to: string
    payer: string
    transaction: string
    created_at: string
  }
}

export type EarningsKind = 'sale' | 'fee' | 'x402' | 'payout' | 'opening'
export type JournalKind = 'deposit' | 'hold' | 'capture' | 'void' | 'charge' | 'refund'
export type HoldState = 'pending' | 'captured' | 'voided'
