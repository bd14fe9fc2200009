/** The headers an execute route reads and writes besides the wallet token. */
export const IDEMPOTENCY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'
export const COST_HEADER = 'x-registry-cost'
export const BALANCE_HEADER = 'x-registry-balance'
/** The Bee's version a call pins (`1`, `1.2`, `1.2.3`), and, on its answer, the version that answered. */
export const BEE_VERSION_HEADER = 'bee-version'
/** Where a run's caller asks to be called back once the run ended (a Standard Webhooks delivery). */
export const CALLBACK_HEADER = 'callback-url'
