import { Type, type Static } from 'typebox'
import { Value } from 'typebox/value'
import { BeesSettings, beesSettingsProblems, beesTimeoutsMs } from '../bees/settings.js'
import { commaList } from './core/comma-list.js'
import { parseSecretsKey } from './core/ledger/secrets.js'
import { parseBuiltinLimits } from './core/limits/builtin-limits.js'
import { parseBuiltinPlans } from './core/subscriptions/builtin-plans.js'
import { allowlistEntryProblem } from './core/publishing/egress.js'
import { CurrencyCode, StringEnum } from './core/schemas.js'
import { corsOriginProblem } from './http/cors-origins.js'

/** The service's own settings; each built-in Bee's are in its folder (bees/settings.ts). */
const ServiceSettings = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'TCP port to listen on.' }),
  HOST: Type.String({ minLength: 1, default: '0.0.0.0', description: 'Interface to bind.' }),
  DATABASE_URL: Type.String({
    minLength: 1,
    default: './data/apiary.db',
    description: 'Ledger location: postgres://… for PostgreSQL; a file path, sqlite:PATH, or :memory: for SQLite.'
  }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'PostgreSQL connections per instance.' }),
  IDEMPOTENCY_TTL_HOURS: Type.Integer({ minimum: 1, default: 24, description: 'How long an Idempotency-Key and its response are kept.' }),
  IDEMPOTENCY_LEASE_SECONDS: Type.Integer({
    minimum: 1,
    default: 60,
    description: 'How long a claimed Idempotency-Key stays with its execution; after that a retry of the same request takes ' +
      'the claim over (its process is taken to have died). Must exceed the longest Bee timeout.'
  }),
  HOLD_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    default: 120,
    description: 'How long a paid call\'s hold may stay pending before the sweeper voids it (credits it back). Must exceed ' +
      'the longest Bee timeout plus IDEMPOTENCY_LEASE_SECONDS.'
  }),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 86400,
    default: 3600,
    description: 'Lifetime of an OAuth access token (a verification token minted from the budget granted on the consent page); the client refreshes it.'
  }),
  OAUTH_REFRESH_TOKEN_TTL_DAYS: Type.Integer({
    minimum: 1,
    maximum: 90,
    default: 30,
    description: 'Lifetime of an OAuth refresh token (rotated on every use) and of its grant.'
  }),
  TOKEN_KEY_ROTATION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 365,
    default: 30,
    description: 'How long one Ed25519 key signs verification tokens before the next takes over; a key stays in the JWKS ' +
      '(and verifies) until every token it signed has expired.'
  }),
  HOLD_SWEEP_INTERVAL_MS: Type.Integer({
    minimum: 10,
    default: 10_000,
    description: 'How often each instance voids the holds past HOLD_TIMEOUT_SECONDS.'
  }),
  ADMIN_TOKEN: Type.Optional(Type.String({
    minLength: 16,
    description: 'Bearer token for the admin API; the admin API is disabled when unset.'
  })),
  BENCH_SPANS_FILE: Type.Optional(Type.String({
    minLength: 1,
    description: 'Bench builds only: time every request hook and execution step, and write their totals to this file at close ' +
      '(bench/breakdown.ts). Unset in service: nothing is timed.'
  })),
  METRICS_TOKEN: Type.Optional(Type.String({
    minLength: 16,
    description: 'Bearer token that /metrics asks for on the service\'s own port. Unset (and METRICS_PORT unset): no metrics are ' +
      'collected and /metrics does not exist.'
  })),
  METRICS_PORT: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 65535,
    description: 'Serve /metrics on this port of METRICS_HOST instead, without a token: for a scraper on a private network.'
  })),
  METRICS_HOST: Type.String({
    default: '127.0.0.1',
    minLength: 1,
    description: 'Address the METRICS_PORT listener binds: 127.0.0.1 unless the scraper needs another (0.0.0.0 in a container).'
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({
    pattern: '^https?://[^\\s]+$',
    description: 'OTLP/HTTP collector (e.g. http://collector:4318): traces of every request and of calls to remote Bees are ' +
      'sent to its /v1/traces. Unset: tracing is off and its libraries are not loaded.'
  })),
  OTEL_SERVICE_NAME: Type.String({ default: 'apiary', minLength: 1, description: 'service.name of the traces.' }),
  PRESSURE_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
    minimum: 0,
    default: 1000,
    description: 'Shed load (503 OVERLOADED with Retry-After) while the mean event-loop delay is above this; 0: never on this measure.'
  }),
  PRESSURE_MAX_HEAP_USED_BYTES: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'Shed load while the V8 heap in use is above this many bytes; 0: never on this measure.'
  }),
  PRESSURE_MAX_RSS_BYTES: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'Shed load while the resident set size is above this many bytes; 0: never on this measure.'
  }),
  PRESSURE_RETRY_AFTER_SECONDS: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'Retry-After of a request shed under pressure.'
  }),
  LOG_LEVEL: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', description: 'pino log level.' }),
  BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    default: 2 * 1024 * 1024,
    description: 'Largest request body accepted; larger bodies get 413.'
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 30_000,
    description: 'Time a client has to send a whole request, headers and body; a slower one gets 408.'
  }),
  REMOTE_BEE_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000, description: 'Time limit for one call to a published Bee.' }),
  REMOTE_BEE_MAX_RESPONSE_BYTES: Type.Integer({ minimum: 1024, default: 1024 * 1024, description: 'Largest reply accepted from a published Bee.' }),
  EGRESS_ALLOWLIST: Type.String({
    default: '',
    description: 'Comma-separated hosts, IPs or CIDR ranges that published Bees may use although private (and over plain http).'
  }),
  CATALOG_CACHE_SIZE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 1000,
    description: 'The most published Bees an instance keeps loaded (their records, validators and opened secrets), the most recently used; ' +
      'another is read from the database on its first use. Bounds the memory the catalog takes, whatever its size.'
  }),
  CATALOG_SYNC_MS: Type.Integer({ minimum: 100, default: 1000, description: 'How often an instance checks the database for catalog changes made by others.' }),
  HEALTH_WINDOW_MINUTES: Type.Integer({
    minimum: 1,
    maximum: 1440,
    default: 60,
    description: 'The window of every Bee\'s health figures (success rate, latency, conformance), in minutes: the last ones, the current one included.'
  }),
  HEALTH_SYNC_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 5000,
    description: 'How often an instance writes the Bee runs it counted to the ledger and reads back the health figures that changed since.'
  }),
  PUBLISHER_MAX_BEES: Type.Integer({ minimum: 1, default: 100, description: 'Most Bees one publisher may have published at once.' }),
  VERSION_SUNSET_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 90,
    description: 'Days a published Bee\'s older major version is served after a new major replaced it, as its announced Sunset.'
  }),
  MCP_REREAD_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 86_400,
    default: 300,
    description: 'How often the MCP servers Bees were imported from are re-read (besides when one says its tools changed); 0: never.'
  }),
  PUBLISHER_MAX_OPENAPI_BYTES: Type.Integer({
    minimum: 4096,
    default: 131_072,
    description: 'Largest part of its own OpenAPI document one published Bee may take: its name, description and both schemas.'
  }),
  RUN_MAX_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 900,
    description: 'The longest run an async Bee may declare (its config.maxRunSeconds), and the limit of one whose publisher declared none.'
  }),
  RUN_WAIT_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 60,
    default: 5,
    description: 'How long a call to an async Bee without Prefer: respond-async waits for its run before answering 202: the default ' +
      'and the most a Prefer: wait=N asks for.'
  }),
  RUN_QUEUE_SECONDS: Type.Integer({
    minimum: 1,
    default: 300,
    description: 'How long a run may wait for a worker (or lie with a worker that died) on top of its maxRunSeconds; past that it ' +
      'expires and its hold is voided.'
  }),
  RUN_RETENTION_HOURS: Type.Integer({
    minimum: 1,
    default: 168,
    description: 'How long a run is kept once it ended (its Honey, its input): then it is deleted, and its id answers 404.'
  }),
  RUN_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 256, default: 16, description: 'Runs of async Bees one instance runs at once.' }),
  RUN_POLL_MS: Type.Integer({ minimum: 10, default: 1000, description: 'How often an idle run worker looks for queued runs, runs left by a dead worker, and expired ones.' }),
  RUN_LEASE_SECONDS: Type.Integer({
    minimum: 2,
    default: 30,
    description: 'How long a worker\'s claim on a run lasts without a heartbeat; after that another worker (after a restart, say) takes the run over.'
  }),
  STREAM_MAX_OPEN: Type.Integer({
    minimum: 1,
    default: 1000,
    description: 'Streams (Accept: text/event-stream: a stream Bee\'s call, a run\'s events, an MCP call with progress) one instance keeps open at once; one more is refused with 503 STREAMS_FULL (MCP answers JSON instead).'
  }),
  STREAM_HEARTBEAT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 300,
    default: 15,
    description: 'How often an open stream sends a comment line when it has nothing else to send, so proxies keep it open.'
  }),
  STREAM_BUFFER_BYTES: Type.Integer({
    minimum: 4096,
    default: 262_144,
    description: 'Most bytes a stream keeps waiting for a client that does not read; past them it ends with STREAM_TOO_SLOW.'
  }),
  RUN_MAX_PER_WALLET: Type.Integer({
    minimum: 0,
    default: 20,
    description: 'Runs one wallet token may have queued or running at once; one more is refused with 429 RUN_LIMIT_REACHED ' +
      'before its hold. 0: no limit.'
  }),
  RUN_CALLBACK_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 30,
    default: 8,
    description: 'Attempts to deliver a run\'s completion webhook (Callback-Url) before it is given up.'
  }),
  RUN_CALLBACK_RETRY_SECONDS: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'The wait after a webhook delivery failed (an error status, no answer), doubled after each next failure, ' +
      'at most an hour.'
  }),
  PRICE_CURRENCY: CurrencyCode('ISO 4217 currency of Bee prices and new wallets.', { default: 'USD' }),
  PLATFORM_FEE_BPS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 0,
    description: 'The operator\'s fee on each sale of a published Bee, in basis points of the price (250 = 2.5 %; rounded down ' +
      'to the micro-unit); the publisher earns the rest. Built-in Bees earn wholly for the operator.'
  }),
  SIGNING_SECRET_OVERLAP_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 30 * 24 * 3600,
    default: 24 * 3600,
    description: 'How long a rotated signing secret still signs calls, next to the new one; 0 ends it at once.'
  }),
  SECRETS_KEY: Type.Optional(Type.String({
    description: 'AES-256 key (32 bytes, base64 or hex) that encrypts signing secrets at rest. Required with PostgreSQL; ' +
      'with SQLite, unset means a key generated in a file next to the database.'
  })),
  SECRETS_KEY_PREVIOUS: Type.String({
    default: '',
    description: 'Comma-separated earlier SECRETS_KEY values, still read while rows are re-encrypted under the current key.'
  }),
  CORS_ORIGINS: Type.String({
    default: '',
    description: 'Comma-separated origins (scheme://host[:port]) whose browser pages may call the API; empty turns CORS off.'
  }),
  // The schema is checked without formats: the pattern is the e-mail check.
  PREPARER_EMAIL: Type.String({
    pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
    default: 'preparer@apiary.invalid',
    description: 'E-mail address of the operator\'s preparer: completedBy of website preparations that complete on their own, ' +
      'and the contact in the crawler\'s User-Agent.'
  }),
  PREPARATION_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 2, description: 'Website preparations one instance runs at once.' }),
  PREPARATION_MAX_PAGES: Type.Integer({ minimum: 1, maximum: 1000, default: 25, description: 'Most pages one website preparation fetches.' }),
  PREPARATION_PAGE_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000, description: 'Time limit for fetching one page (robots.txt and sitemaps included).' }),
  PREPARATION_PAGE_MAX_BYTES: Type.Integer({ minimum: 1024, default: 2 * 1024 * 1024, description: 'Largest page a preparation reads; larger ones are skipped.' }),
  PREPARATION_TOTAL_TIMEOUT_MS: Type.Integer({ minimum: 1000, default: 120_000, description: 'Time budget of one website crawl.' }),
  PREPARATION_TOTAL_MAX_BYTES: Type.Integer({ minimum: 1024, default: 20 * 1024 * 1024, description: 'Bytes one website crawl may read in all.' }),
  PREPARATION_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 3,
    description: 'Runs of a preparation before it stays failed; a failure that may pass (site unreachable) is retried with a doubling back-off.'
  }),
  PREPARATION_RETRY_DELAY_SECONDS: Type.Integer({ minimum: 1, default: 30, description: 'Back-off before the first retry of a failed preparation; it doubles each time.' }),
  PREPARATION_LEASE_SECONDS: Type.Integer({
    minimum: 2,
    default: 60,
    description: 'How long a running preparation\'s claim lasts without a heartbeat (sent every third of it); after that its ' +
      'worker counts as dead and another run takes the job over.'
  }),
  PREPARATION_QUEUE_SCHEMA: Type.Optional(Type.String({
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    description: 'With PostgreSQL: the schema of pg-boss\'s job tables; unset, the ledger\'s schema with _jobs (public_jobs).'
  })),
  PREPARATION_POLL_MS: Type.Integer({ minimum: 50, default: 1000, description: 'How often an idle worker looks for due preparations (SQLite queue and pg-boss).' }),
  PREPARATION_RESEND_SECONDS: Type.Integer({
    minimum: 1,
    default: 60,
    description: 'With PostgreSQL: how often each instance looks for due preparations that have no pg-boss job (their process ' +
      'died between saving the record and sending the job) and sends one; a record is looked at once quiet for this long (at least 5 s).'
  }),
  X402_FACILITATOR_URL: Type.Optional(Type.String({
    pattern: '^https?://[^\\s]+$',
    description: 'x402 facilitator (its /verify, /settle and /supported). Set it, X402_NETWORK and X402_PAY_TO to accept x402 ' +
      'payments for pay-per-use Bees priced in USD; unset: x402 is off.'
  })),
  X402_NETWORK: Type.Optional(Type.String({
    pattern: '^eip155:[1-9][0-9]{0,15}$',
    description: 'CAIP-2 id of the EVM network payments settle on, e.g. eip155:8453 (Base) or eip155:84532 (Base Sepolia).'
  })),
  X402_PAY_TO: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'Address that receives x402 payments.' })),
  X402_ASSET: Type.Optional(Type.String({
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'Token contract of a USD stablecoin payments are made in; unset: the network\'s USDC as @x402/evm knows it.'
  })),
  X402_ASSET_NAME: Type.Optional(Type.String({ minLength: 1, description: 'EIP-712 domain name of X402_ASSET, when @x402/evm does not know it.' })),
  X402_ASSET_VERSION: Type.Optional(Type.String({ minLength: 1, description: 'EIP-712 domain version of X402_ASSET, when @x402/evm does not know it.' })),
  X402_ASSET_DECIMALS: Type.Integer({
    minimum: 6,
    maximum: 36,
    default: 6,
    description: 'Decimals of X402_ASSET, when @x402/evm does not know it (at least 6, so every price in micro-units is exact).'
  }),
  X402_MAX_TIMEOUT_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 3600,
    default: 300,
    description: 'How long a signed x402 payment must stay valid: enough to verify it, run the Bee and settle it.'
  }),
  X402_FACILITATOR_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: 'Time limit for one call to the x402 facilitator.'
  }),
  REDIS_URL: Type.Optional(Type.String({
    pattern: '^rediss?://[^\\s]+$',
    description: 'Redis (redis:// or rediss://) that holds the rate-limit counters, so every instance shares them; unset: each ' +
      'instance counts in its own memory.'
  })),
  REDIS_KEY_PREFIX: Type.String({
    pattern: '^[A-Za-z0-9._:-]{1,64}$',
    default: 'apiary:',
    description: 'Start of every key this service writes in REDIS_URL (the per-caller and per-Bee rate-limit counters): give ' +
      'each deployment sharing one Redis its own (e.g. apiary-staging:), or they share counters. Letters, digits, . _ : -.'
  }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 60,
    description: 'The window the per-caller limits count requests in.'
  }),
  RATE_LIMIT_ANONYMOUS_PER_WINDOW: Type.Integer({
    minimum: 0,
    default: 300,
    description: 'Requests one client address may make per window without a valid credential; 0: no limit.'
  }),
  RATE_LIMIT_WALLET_PER_WINDOW: Type.Integer({
    minimum: 0,
    default: 1200,
    description: 'Requests one wallet (X-Registry-Wallet-Token) may make per window; 0: no limit.'
  }),
  RATE_LIMIT_PUBLISHER_PER_WINDOW: Type.Integer({
    minimum: 0,
    default: 600,
    description: 'Requests one publisher key (or the admin token) may make per window; 0: no limit.'
  }),
  RATE_LIMIT_BUILTIN_BEES: Type.String({
    default: '',
    description: 'Comma-separated id=calls, the most calls per minute a built-in Bee takes from all callers together ' +
      '(e.g. weather-sensor=100, to spare its upstream); a Bee not listed has no such limit.'
  }),
  SUBSCRIPTION_BUILTIN_BEES: Type.String({
    default: '',
    description: 'JSON object from built-in Bee id to a subscription plan that replaces its per-call price, e.g. ' +
      '{"sentiment-analyzer":{"periodPrice":5,"periodDays":30,"includedCalls":10000,"overagePrice":0.0005}} ' +
      '(overagePrice null: calls past the quota are refused until the period resets); empty: none.'
  }),
  WALLET_DOCS_URL: Type.Optional(Type.String({
    pattern: '^https?://[^\\s]+$',
    description: 'Page that tells a caller how to get a funded wallet; every 402 links to it (transactionDetails.walletDocs).'
  })),
  PUBLIC_BASE_URL: Type.Optional(Type.String({
    pattern: '^https?://[^\\s?#]+$',
    description: 'The http(s) address clients reach the service at (no query or fragment): the OpenAPI document\'s server, and ' +
      'the base of the links in llms.txt, Markdown views and the agent card. Unset, the document\'s server is relative and ' +
      'links follow the request\'s Host.'
  }))
})

/** Every setting the service reads from the environment, its own and its built-in Bees', validated once at start. */
export const ConfigSchema = Type.Object({ ...ServiceSettings.properties, ...BeesSettings.properties })

export type Config = Static<typeof ConfigSchema>

/**
 * Reads and validates the configuration. A bad value throws an error that names the variable,
 * so start-up stops before anything listens. A variable set to the empty string counts as unset,
 * as container environments often write `ADMIN_TOKEN=` to mean "none".
 */
export function loadConfig (env: Record<string, string | undefined> = process.env): Config {
  const data: Record<string, string> = {}
  for (const name of Object.keys(ConfigSchema.properties)) {
    const value = env[name]
    if (value !== undefined && value !== '') data[name] = value
  }
  const config = checkHoldTimeouts(checked(data))
  const problem = formatProblems(config)[0]
  if (problem !== undefined) throw new Error(problem)
  // Links are built by appending a path to it: `https://apiary.example.com/` must not give `//api/bees`.
  if (config.PUBLIC_BASE_URL !== undefined) config.PUBLIC_BASE_URL = config.PUBLIC_BASE_URL.replace(/\/+$/, '')
  return config
}
/**
 * Each number variable's text as its number, when the text is one ("1.5" stays 1.5 and fails an integer's check,
 * where TypeBox's own Value.Convert would truncate it to 1); any other text is left for the check to name.
 */
function numbersRead (data: Record<string, string>): Record<string, string | number> {
  const read: Record<string, string | number> = { ...data }
  for (const [name, text] of Object.entries(data)) {
    const type = (ConfigSchema.properties as Record<string, { type?: unknown }>)[name]?.type
    if ((type === 'integer' || type === 'number') && text.trim() !== '' && !Number.isNaN(Number(text))) read[name] = Number(text)
  }
  return read
}

/**
 * The variables with the schema's defaults filled in and numbers read from their text, or an error listing each bad
 * one by name. TypeBox's Value interprets the schema in a few milliseconds; compiling it with Ajv (env-schema) was
 * 60–90 ms of every start, for a check that runs once.
 */
function checked (data: Record<string, string>): Config {
  const config = Value.Default(ConfigSchema, numbersRead(data))
  const problems = [...Value.Errors(ConfigSchema, config)].map((error) => `${error.instancePath.slice(1) || 'the configuration'} ${error.message}`)
  if (problems.length > 0) throw new Error(problems.join(', '))
  return config as Config
}

/**
 * A claim must outlive any execution (or a running call would be taken over and run twice), and a
 * hold must outlive the claim and its execution (or a hold would be voided under a call that can
 * still capture it, and that call would have to throw its answer away).
 */
function checkHoldTimeouts (config: Config): Config {
  const timeouts = { ...beesTimeoutsMs(config), REMOTE_BEE_TIMEOUT_MS: config.REMOTE_BEE_TIMEOUT_MS }
  const longestBeeMs = Math.max(...Object.values(timeouts))
  const leaseMs = config.IDEMPOTENCY_LEASE_SECONDS * 1000
  if (leaseMs <= longestBeeMs) {
    throw new Error(`IDEMPOTENCY_LEASE_SECONDS (${config.IDEMPOTENCY_LEASE_SECONDS}) must exceed the longest Bee timeout ` +
      `(${Object.keys(timeouts).join(', ')}: ${longestBeeMs} ms)`)
  }
  const x402Ms = 2 * config.X402_FACILITATOR_TIMEOUT_MS + longestBeeMs
  if (x402Enabled(config) && (leaseMs <= x402Ms || config.X402_MAX_TIMEOUT_SECONDS * 1000 <= x402Ms)) {
    throw new Error(`IDEMPOTENCY_LEASE_SECONDS (${config.IDEMPOTENCY_LEASE_SECONDS}) and X402_MAX_TIMEOUT_SECONDS ` +
      `(${config.X402_MAX_TIMEOUT_SECONDS}) must exceed an x402 call: the longest Bee timeout plus twice X402_FACILITATOR_TIMEOUT_MS (${x402Ms} ms)`)
  }
  if (config.HOLD_TIMEOUT_SECONDS * 1000 <= leaseMs + longestBeeMs) {
    throw new Error(`HOLD_TIMEOUT_SECONDS (${config.HOLD_TIMEOUT_SECONDS}) must exceed the longest Bee timeout ` +
      `(${longestBeeMs} ms) plus IDEMPOTENCY_LEASE_SECONDS (${config.IDEMPOTENCY_LEASE_SECONDS})`)
  }
  return config
}

const X402_REQUIRED = ['X402_FACILITATOR_URL', 'X402_NETWORK', 'X402_PAY_TO'] as const

/** x402 is on when its three required variables are set (formatProblems refuses a partial set). */
export const x402Enabled = (config: Config) => X402_REQUIRED.every((name) => config[name] !== undefined)

/**
 * A URL scheme followed by anything: `mysql://…`, `Postgres://…`, `file:…`. A one-letter "scheme" is a
 * Windows drive (`C:\data\apiary.db`), a path.
 */
const URL_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):/

/** Why DATABASE_URL is none of the documented forms, or null. Anything else would silently become a SQLite file. */
function databaseUrlProblem (url: string): string | null {
  const scheme = URL_SCHEME.exec(url)?.[1]
  if (scheme === undefined || scheme === 'sqlite' || /^postgres(ql)?:\/\/./.test(url)) return null
  const hint = /^postgres(ql)?$/i.test(scheme) ? ' (write the scheme in lower case, postgres:// or postgresql://)' : ''
  return `DATABASE_URL must be a file path, sqlite:PATH, :memory:, or postgres://… / postgresql://…; "${scheme}:" is not supported${hint}`
}

/** The format checks JSON Schema cannot state clearly: each message names its variable and the bad value. */
function formatProblems (config: Config): string[] {
  const problems: string[] = []
  const database = databaseUrlProblem(config.DATABASE_URL)
  if (database !== null) problems.push(database)
  for (const entry of commaList(config.EGRESS_ALLOWLIST)) {
    const problem = allowlistEntryProblem(entry)
    if (problem !== null) problems.push(`EGRESS_ALLOWLIST: ${problem}`)
  }
  for (const origin of commaList(config.CORS_ORIGINS)) {
    const problem = corsOriginProblem(origin)
    if (problem !== null) problems.push(`CORS_ORIGINS: ${problem}`)
  }
  if (config.WALLET_DOCS_URL !== undefined && !URL.canParse(config.WALLET_DOCS_URL)) {
    problems.push(`WALLET_DOCS_URL: "${config.WALLET_DOCS_URL}" is not a valid URL`)
  }
  const x402Set = X402_REQUIRED.filter((name) => config[name] !== undefined)
  if (x402Set.length > 0 && x402Set.length < X402_REQUIRED.length) {
    problems.push(`x402 needs all of ${X402_REQUIRED.join(', ')}; missing: ${X402_REQUIRED.filter((name) => config[name] === undefined).join(', ')}`)
  }
  if (config.X402_FACILITATOR_URL !== undefined && !URL.canParse(config.X402_FACILITATOR_URL)) {
    problems.push(`X402_FACILITATOR_URL: "${config.X402_FACILITATOR_URL}" is not a valid URL`)
  }
  if ((config.X402_ASSET_NAME === undefined) !== (config.X402_ASSET_VERSION === undefined)) {
    problems.push('X402_ASSET_NAME and X402_ASSET_VERSION go together: set both (the asset\'s EIP-712 domain) or neither')
  }
  if (config.PUBLIC_BASE_URL !== undefined && !URL.canParse(config.PUBLIC_BASE_URL)) {
    problems.push(`PUBLIC_BASE_URL: "${config.PUBLIC_BASE_URL}" is not a valid URL`)
  }
  if (config.REDIS_URL !== undefined && !URL.canParse(config.REDIS_URL)) problems.push('REDIS_URL is not a valid redis:// or rediss:// URL')
  for (const problem of parseBuiltinLimits(config.RATE_LIMIT_BUILTIN_BEES).problems) problems.push(`RATE_LIMIT_BUILTIN_BEES: ${problem}`)
  for (const problem of parseBuiltinPlans(config.SUBSCRIPTION_BUILTIN_BEES).problems) problems.push(`SUBSCRIPTION_BUILTIN_BEES: ${problem}`)
  problems.push(...beesSettingsProblems(config))
  if (config.SECRETS_KEY !== undefined && parseSecretsKey(config.SECRETS_KEY) === null) {
    problems.push('SECRETS_KEY must be 32 random bytes, written as base64 (e.g. `openssl rand -base64 32`) or as 64 hex digits')
  }
  for (const previous of commaList(config.SECRETS_KEY_PREVIOUS)) {
    if (parseSecretsKey(previous) === null) problems.push('SECRETS_KEY_PREVIOUS: every entry must be 32 bytes as base64 or as 64 hex digits')
  }
  if (config.SECRETS_KEY === undefined && /^postgres(ql)?:/.test(config.DATABASE_URL)) {
    problems.push('SECRETS_KEY is required with PostgreSQL: give every instance the same key (`openssl rand -base64 32`), ' +
      'kept apart from the database, which stores signing secrets encrypted with it')
  }
  return problems
}
