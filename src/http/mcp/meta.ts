/**
 * The reverse-DNS prefix of Apiary's keys in MCP `_meta` objects (the spec reserves unprefixed keys and
 * the modelcontextprotocol/mcp prefixes for itself). Every key Apiary reads or writes is listed here.
 */
export const META = {
  /** Tool: `{type, costPerCall, currency}`, the Bee's price. */
  pricing: 'ai.apiary/pricing',
  /** Tool: the Bee's lifecycle status (always "active" in a list). */
  status: 'ai.apiary/status',
  /** Tool: the Bee's category and colony, for filtering on the client. */
  category: 'ai.apiary/category',
  colony: 'ai.apiary/colony',
  /** Tool: the Bee's latest version. tools/call request (and A2A metadata): the version to pin, as the Bee-Version header takes it. */
  beeVersion: 'ai.apiary/beeVersion',
  /** tools/call request: the wallet token, when the HTTP request does not carry X-Registry-Wallet-Token. */
  walletToken: 'ai.apiary/walletToken',
  /** tools/call request: the Idempotency-Key, when the HTTP request does not carry the header. */
  idempotencyKey: 'ai.apiary/idempotencyKey',
  /** tools/call result: the Honey envelope around `structuredContent`. */
  beeId: 'ai.apiary/beeId',
  timestamp: 'ai.apiary/timestamp',
  confidence: 'ai.apiary/confidence',
  freshness: 'ai.apiary/freshness',
  /** tools/call result: true when the answer is the stored one of an earlier call with the same Idempotency-Key. */
  replayed: 'ai.apiary/replayed',
  /** A2A status update of a running task: how far it is, 0 to 1. */
  progress: 'ai.apiary/progress',
  /** tools/call result of a paid call: `{amount, currency, balance}`, what this call took and what the wallet has left. */
  charge: 'ai.apiary/charge',
  /** notifications/progress of a stream Bee's call: the data event relayed, as the upstream sent it. */
  event: 'ai.apiary/event'
} as const

/** A pinned version as `_meta` or metadata carries it: a number (1) reads as its text; any other value, as JSON, is refused by the core. */
export const pinOf = (value: unknown): string | undefined =>
  value === undefined || typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value)
