import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox'

/**
 * Shared schema building blocks. Each shape is declared once here; routes, Bees and the OpenAPI
 * document all take it from this module, and TypeScript types come from `Static<typeof X>`.
 */

/** A shape many answers share: registered once by its `$id` (plugins/shared-schemas.ts) and used by `ref`. */
export type SharedSchema = TSchema & { $id: string }

/** Names a shape with the `$id` it is shared under (its OpenAPI component name). */
export const shared = <T extends TSchema>($id: string, schema: T): T & { $id: string } => Object.assign(schema, { $id })

/**
 * A use of a shared shape, typed as the shape: a `$ref` to its `$id`, so the OpenAPI document holds the
 * shape once (in components/schemas) and the serializer still writes every field of it.
 */
export const ref = <T extends SharedSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Unsafe<Static<T>>({ $ref: schema.$id, ...options })

/** OpenAPI 3.0 has no `type: 'null'`: nullable fields are written the 3.0 way, which Ajv also understands. */
export const NullableString = (options: { description: string }) =>
  Type.Unsafe<string | null>({ type: 'string', nullable: true, ...options })

/** A string enum as OpenAPI 3.0 can express it (TypeBox literal unions compile to `const`, which 3.0 lacks). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description: string, default?: T[number] }) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })

/** Text input of a language Bee: not empty, not only white space, at most `maxChars` characters. */
export const TextInput = (purpose: string, maxChars: number) => Type.String({
  minLength: 1,
  maxLength: maxChars,
  pattern: '\\S',
  description: `Text to ${purpose}, 1 to ${maxChars} characters, not only white space.`
})

/** Kebab-case: also what the ledger checks before looking a Bee up (see the catalog repository). */
export const BEE_ID_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$'
export const BEE_ID_SHAPE = new RegExp(BEE_ID_PATTERN)
/** Whether a string could be a Bee's id: anything else names no Bee, and is never looked up. */
export const isBeeId = (id: string) => BEE_ID_SHAPE.test(id)

export const BeeId = Type.String({
  pattern: BEE_ID_PATTERN,
  maxLength: 64,
  description: 'Unique identifier of the Bee, in kebab-case.'
})

export const BeeStatus = StringEnum(['active', 'inactive', 'deprecated'], {
  description: 'Lifecycle state; discovery lists only active Bees.'
})
export type BeeStatus = Static<typeof BeeStatus>

export const CURRENCY_PATTERN = '^[A-Z]{3}$'

/** An ISO 4217 code, as every currency field that is written (not only read) checks it. */
export const CurrencyCode = (description: string, options: { default?: string } = {}) =>
  Type.String({ pattern: CURRENCY_PATTERN, ...options, description })

/** Said alike wherever a plan is given inline, so that the OpenAPI document refers to the one shared shape. */
export const SUBSCRIPTION_PLAN_DESCRIPTION = 'A subscription plan (docs/payments/subscriptions.md).'

/** The plan of a Bee priced `subscription` (the spec leaves it open: this is Apiary's one extra pricing field). */
export const SubscriptionPlan = shared('SubscriptionPlan', Type.Object({
  periodPrice: Type.Number({ minimum: 0.000001, maximum: 1_000_000, description: 'Paid at the start of each period.' }),
  periodDays: Type.Integer({ minimum: 1, maximum: 366, description: 'Period length.' }),
  includedCalls: Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Calls included per period.' }),
  overagePrice: Type.Unsafe<number | null>({
    type: 'number', nullable: true, minimum: 0.000001, maximum: 1000, description: 'Price of each further call; null: none until the period resets.'
  })
}, { additionalProperties: false, description: SUBSCRIPTION_PLAN_DESCRIPTION }))
export type SubscriptionPlan = Static<typeof SubscriptionPlan>

export const Pricing = Type.Object({
  type: StringEnum(['free', 'pay-per-use', 'subscription'], { description: 'How calls are paid for.' }),
  costPerCall: Type.Number({ minimum: 0, description: 'Cost of one call in `currency`; 0 if free; a subscription\'s overagePrice or 0.' }),
  currency: Type.String({ description: 'ISO 4217 currency code of costPerCall.' }),
  // Inline, not by $ref: the Bee record is compiled on its own too (MCP's output schemas, clients).
  plan: Type.Optional(Type.Object(SubscriptionPlan.properties, { additionalProperties: false, title: 'SubscriptionPlan', description: SUBSCRIPTION_PLAN_DESCRIPTION }))
}, { description: 'What one call costs.' })
export type Pricing = Static<typeof Pricing>

export const EXECUTION_MODES = ['sync', 'async', 'stream'] as const
export type ExecutionMode = typeof EXECUTION_MODES[number]

export const ExecutionModeSchema = StringEnum(EXECUTION_MODES, { description: 'sync, async (a run, docs/runs.md) or stream.' })

export const BeeConfig = Type.Object({
  primaryServices: Type.Array(Type.String(), { description: 'What the Bee offers, as short service names.' }),
  executionMode: ExecutionModeSchema,
  executionProvider: Type.String({ description: 'The library or upstream service that does the work.' }),
  maxRunSeconds: Type.Optional(Type.Integer({ minimum: 1, description: 'async, stream: run time limit.' })),
  eventSchema: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'stream: JSON Schema of each event.' }))
}, { description: 'How the Bee is executed.' })

const NullableNumber = (options: { minimum: number, maximum?: number, description: string }) =>
  Type.Unsafe<number | null>({ type: 'number', nullable: true, ...options })

/** How a Bee has done lately, for agents to choose by (docs/catalog.md, Bee health); nulls when nothing was counted, never a made-up figure. */
export const BeeHealth = Type.Object({
  windowMinutes: Type.Integer({ minimum: 1, description: 'The window the figures cover: the last HEALTH_WINDOW_MINUTES minutes, the current one included.' }),
  calls: Type.Integer({
    minimum: 0,
    description: 'Runs of the Bee in the window, on every door and every instance. Calls refused before the Bee ran ' +
      '(invalid input, 402, 429) and idempotent replays are not runs.'
  }),
  successRate: NullableNumber({
    minimum: 0,
    maximum: 1,
    description: 'Share of the runs that answered with valid output (not an error, a timeout, an upstream failure or output ' +
      'breaking the outputSchema), 0 to 1; null without runs in the window.'
  }),
  p50Ms: NullableNumber({ minimum: 0, description: 'Median run time in milliseconds (from a histogram, interpolated); null without runs.' }),
  p95Ms: NullableNumber({ minimum: 0, description: '95th-percentile run time in milliseconds (from a histogram, interpolated); null without runs.' }),
  conformance: NullableNumber({
    minimum: 0,
    maximum: 1,
    description: 'Of the runs in which the Bee answered, the share whose answer matched its outputSchema, 0 to 1; null without such runs.'
  })
}, { description: 'The Bee\'s recent success rate, latency and output conformance, updated every few seconds.' })
export type BeeHealth = Static<typeof BeeHealth>

/** A JSON Schema document, served as data. */
const JsonSchemaDocument = (description: string) => Type.Object({}, { additionalProperties: true, description })

export const BeeRecord = shared('Bee', Type.Object({
  id: BeeId,
  name: Type.String({ description: 'Human-readable name.' }),
  description: Type.String({ description: 'What the Bee does, and what its Honey confidence and freshness mean.' }),
  category: Type.String({ description: 'Functional area: reasoning, data or utility.' }),
  version: Type.String({
    description: 'The Bee\'s semantic version (its schemas and endpoint; a breaking change raises the major). Calls get the latest ' +
      'unless they pin one with the Bee-Version header (1, 1.2 or 1.2.3); GET /api/bees/{id}/versions lists them all.'
  }),
  endpoint: Type.String({ description: 'Address to execute the Bee: its execute path on this service.' }),
  inputSchema: JsonSchemaDocument('JSON Schema of the execute body.'),
  outputSchema: JsonSchemaDocument('JSON Schema of Honey.result.'),
  pricing: Pricing,
  status: BeeStatus,
  statusMessage: NullableString({ description: 'Why the Bee is inactive or deprecated, and what to use instead.' }),
  sunsetAt: Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, description: 'When a deprecated Bee stops answering (ISO 8601), if announced.' }),
  lastUpdated: Type.String({ format: 'date-time', description: 'When the record last changed (ISO 8601).' }),
  colony: Type.String({ description: 'Grouping label: core for the built-in Bees.' }),
  ownerId: NullableString({ description: 'Owner reference; null for built-in Bees.' }),
  type: Type.String({ description: 'Kind of Bee: builtin (compiled into Apiary) or remote (published).' }),
  config: BeeConfig,
  openapi: Type.Optional(Type.String({
    description: 'In detail: the path of the Bee\'s own OpenAPI 3.0 document on this service, its execute call with its exact schemas, for a client generator.'
  })),
  // Inline, as pricing's plan: the Bee record is compiled on its own too.
  health: Type.Optional(Type.Object(BeeHealth.properties, { description: 'In discovery, detail and find_bees: how the Bee has done lately.' }))
}, { description: 'A Bee: a capability with declared input and output schemas.' }))
export type BeeRecord = Static<typeof BeeRecord>

/** Most calls a minute a Bee's own limit may allow: beyond it a limit would spare no upstream. */
export const MAX_CALLS_PER_MINUTE = 1_000_000

export const BeeRateLimit = Type.Object({
  callsPerMinute: Type.Integer({
    minimum: 1,
    maximum: MAX_CALLS_PER_MINUTE,
    description: 'Most calls a minute from all callers, on every door; more get 429 BEE_RATE_LIMITED, not charged.'
  })
}, { additionalProperties: false, title: 'BeeRateLimit', description: 'A limit on calls to the Bee, counted across all its callers.' })

/**
 * A shared shape with more fields after its own, typed as both: `allOf` of the shape by `$ref` and the
 * rest, which the serializer merges in that order.
 */
const extended = <T extends SharedSchema, P extends TProperties>(base: T, more: P, description: string) =>
  Type.Unsafe<Static<T> & Static<TObject<P>>>({ allOf: [ref(base), Type.Object(more)], description })

/** The details of a Bee only its owner and the operator see. */
const ManagedFields = {
  upstreamEndpoint: NullableString({ description: 'Where Apiary forwards calls (published Bees); null for built-ins.' }),
  ownerEmail: NullableString({ description: 'E-mail address of the owner; null for built-ins.' }),
  rateLimit: Type.Unsafe<Static<typeof BeeRateLimit> | null>({
    ...BeeRateLimit,
    nullable: true,
    description: 'The Bee\'s own limit on calls from all callers together (its publisher\'s, or the operator\'s for a built-in); null: none.'
  })
}

/** What a publisher (or the operator) sees of a Bee it manages: the public record and the private parts. */
// One part, titled, for the changed and the newly published Bee alike: the OpenAPI document lists it once.
const ManagedDetails = Type.Object(ManagedFields, { title: 'BeeManagement', description: 'The details of a Bee only its owner and the operator see.' })

export const ManagedBee = Type.Unsafe<Static<typeof BeeRecord> & Static<typeof ManagedDetails>>({
  allOf: [ref(BeeRecord), ManagedDetails],
  description: 'A Bee with the details only its owner and the operator see.'
})

const SigningSecret = Type.Object({
  signingSecret: Type.String({ description: 'HMAC-SHA256 key of the X-Apiary-Signature header on every forwarded call. Shown only here.' })
})
export const PublishedBee = Type.Unsafe<Static<typeof ManagedBee> & Static<typeof SigningSecret>>({
  allOf: [ref(BeeRecord), ManagedDetails, SigningSecret],
  description: 'A newly published Bee with its signing secret.'
})

export const Publisher = Type.Object({
  id: Type.String({ description: 'Publisher identifier: the ownerId of its Bees.' }),
  email: Type.String({ format: 'email', description: 'Contact address of the publisher.' }),
  name: Type.String({ description: 'Display name of the publisher.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When the key was issued.' })
}, { description: 'A publisher.' })

export const CreatedPublisher = Type.Object({
  ...Publisher.properties,
  key: Type.String({ description: 'Publisher key for Authorization: Bearer. Shown only here; it is stored hashed.' })
}, { description: 'A new publisher with its key.' })

/** Titled: every listing's cursor is one shape in the OpenAPI document. */
const NextCursor = Type.Unsafe<string | null>({ type: 'string', nullable: true, title: 'NextCursor', description: 'Pass as cursor to get the next page; null on the last page.' })

export const BeeList = Type.Object({
  bees: Type.Array(ref(BeeRecord), { description: 'Active Bees matching the query, in id order.' }),
  nextCursor: NextCursor
}, { description: 'The discovery list.' })

/** A Bee every registry has, free to call: path examples name it so that they work as printed. */
export const BEE_ID_EXAMPLE = 'text-summarizer'

export const BeeIdParams = Type.Object({ id: Type.String({ description: 'Identifier of the Bee.', examples: [BEE_ID_EXAMPLE] }) })

/** The Honey envelope, whatever the Bee: `result` is in its place, and each Bee's own output schema says what it holds. */
export const HoneyEnvelope = shared('Honey', Type.Object({
  beeId: Type.String({ description: 'Identifier of the Bee that executed.' }),
  timestamp: Type.String({ format: 'date-time', description: 'Server completion time (ISO 8601).' }),
  result: Type.Unknown({ description: 'The Bee\'s output, as its outputSchema describes.' }),
  confidence: Type.Number({ minimum: 0, maximum: 1, description: 'How far the result can be trusted, 0 to 1; each Bee documents its meaning.' }),
  freshness: Type.Number({ minimum: 0, description: 'Age in seconds of the data behind the result; 0 when computed now.' })
}, { description: 'Honey: the standard envelope of an execution result.' }))

/** The Honey of one Bee: the envelope, with `result` its own output schema. */
export const Honey = <T extends TSchema>(result: T) => extended(HoneyEnvelope, { result }, 'Honey: the standard envelope of an execution result.')

export const AnyResult = Type.Object({}, { additionalProperties: true, description: 'Output conforming to the Bee\'s outputSchema.' })

export const ErrorBody = shared('Error', Type.Object({
  error: Type.String({ description: 'Short title of the error (the HTTP status text).' }),
  code: Type.String({ description: 'Stable machine-readable code in UPPER_SNAKE case; see docs/errors.md.' }),
  message: Type.String({ description: 'What went wrong and what to do about it.' })
}, { description: 'An error.' }))
export type ErrorBody = Static<typeof ErrorBody>

export const ValidationErrorBody = shared('ValidationError', extended(ErrorBody, {
  details: Type.Optional(Type.Array(Type.Object({
    field: Type.String({ description: 'JSON pointer of the offending field (empty for the body itself).' }),
    reason: Type.String({ description: 'Why the value was refused.' })
  }), { description: 'Each field that failed validation (absent when the body is missing or not JSON).' }))
}, 'An error, naming the fields that failed validation.'))

export const RateLimitedBody = shared('RateLimited', extended(ErrorBody, {
  retryAfter: Type.Integer({ minimum: 0, description: 'Seconds to wait before retrying (the Retry-After header says the same).' })
}, 'Too many requests: RATE_LIMITED (this caller\'s limit) or BEE_RATE_LIMITED (a Bee\'s own limit, all callers together). Nothing was charged.'))

export const PaymentRequiredBody = shared('PaymentRequired', extended(ErrorBody, {
  transactionDetails: Type.Object({
    beeId: Type.String({ description: 'The Bee that was called.' }),
    cost: Type.Number({ description: 'Price of one call.' }),
    currency: Type.String({ description: 'Currency of the price.' }),
    requiredHeader: Type.String({ description: 'Header that must carry a funded wallet token.' }),
    howToPay: Type.String({ description: 'One sentence on how to pay for this call: which header, what wallet, who issues it.' }),
    plan: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The Bee\'s plan.' })),
    resetsAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the next period starts.' })),
    walletDocs: Type.Optional(Type.String({
      format: 'uri',
      description: 'Page on how to get a funded wallet (the operator\'s WALLET_DOCS_URL); absent when none is configured.'
    })),
    x402: Type.Optional(Type.String({
      description: 'Present when an x402 v2 offer for this call is attached (HTTP: the PAYMENT-REQUIRED header; MCP: this result\'s ' +
        'accepts): says where it is and how to send the signed payment instead of a wallet token.'
    }))
  }, { description: 'What the call costs and how to pay for it.' })
}, 'An error: the call needs a funded wallet, and this is what it costs.'))

export const WALLET_HEADER = 'x-registry-wallet-token'
export const WALLET_HEADER_NAME = 'X-Registry-Wallet-Token'

/** Largest amount one deposit (or opening balance) may move. */
export const MAX_AMOUNT = 1e9

/**
 * Most a wallet may hold, in units of its currency. Balances are integer micro-units read back as
 * JavaScript numbers (better-sqlite3 and pg both hand back doubles), which are exact only up to 2^53
 * (about 9,007,199,254 units): a deposit that would cross this cap is refused. The headroom between
 * the cap and 2^53 lets voids of holds still in flight land above it without losing precision.
 */
export const MAX_BALANCE = 9_000_000_000

/** Wallet ids are `wal_` and 16 base64url characters (see issueWallet); the pattern is a little looser. */
export const WALLET_ID_PATTERN = '^wal_[A-Za-z0-9_-]{1,64}$'

export const WalletId = Type.String({
  pattern: WALLET_ID_PATTERN,
  description: 'Wallet identifier: wal_ and base64url characters.'
})

export const Wallet = shared('Wallet', Type.Object({
  id: WalletId,
  balance: Type.Number({ description: 'Available balance in `currency`: what new calls can spend, after pending holds.' }),
  held: Type.Number({
    description: 'Sum of pending holds, already taken from `balance`: each is captured when its call answers, or voided ' +
      '(credited back) when it fails or after HOLD_TIMEOUT_SECONDS.'
  }),
  currency: Type.String({ description: 'ISO 4217 currency of the wallet.' }),
  label: NullableString({ description: 'Free-text label given at creation.' }),
  frozen: Type.Boolean({ description: 'A frozen wallet cannot be charged (402 WALLET_FROZEN) until unfrozen.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When the wallet was created.' })
}, { description: 'A prepaid wallet.' }))
export type Wallet = Static<typeof Wallet>

export const CreatedWallet = extended(Wallet, {
  token: Type.String({ description: 'Wallet token for X-Registry-Wallet-Token. Shown only here; it is stored hashed.' })
}, 'A new wallet with its token.')

export const JournalEntry = shared('JournalEntry', Type.Object({
  id: Type.Integer({ description: 'Journal entry number.' }),
  kind: StringEnum(['deposit', 'hold', 'capture', 'void', 'charge', 'refund'], {
    description: 'deposit: funds added. hold: a call\'s price reserved (taken from the balance). capture: the hold became ' +
      'a sale (the answer was produced; no balance change). void: the hold was released and credited back (the call ' +
      'failed, or the hold expired). charge and refund: entries written before holds existed, with their old meaning.'
  }),
  amount: Type.Number({ description: 'Amount moved (for a capture: the amount of the hold it settles), always positive.' }),
  beeId: NullableString({ description: 'Bee of a hold, capture, void, charge or refund.' }),
  requestId: NullableString({ description: 'Request that caused the entry (its X-Request-Id).' }),
  idempotencyKey: NullableString({ description: 'Idempotency-Key of the execution, when one was sent.' }),
  holdId: Type.Unsafe<number | null>({
    type: 'integer',
    nullable: true,
    description: 'On a capture or void: the id of the hold entry it settles (each hold is settled once); null otherwise.'
  }),
  createdAt: Type.String({ format: 'date-time', description: 'When the entry was written.' })
}, { description: 'One ledger movement.' }))
export type JournalEntry = Static<typeof JournalEntry>

export const PageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size (default 50).' }),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The previous page\'s nextCursor.' }))
})

/** A page of items with the cursor of the next page. */
export const paged = <T extends TSchema>(name: string, item: T) => Type.Object({
  [name]: Type.Array(item, { description: 'This page, in order.' }),
  nextCursor: NextCursor
}, { description: 'One page.' })

export const WalletStatement = extended(Wallet, {
  recent: Type.Array(ref(JournalEntry), { description: 'The most recent journal entries, newest first.' })
}, 'A wallet with its recent movements.')
