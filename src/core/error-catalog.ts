/**
 * Every code the service answers with: its HTTP status and when it is sent, one entry per code, as fastify's own
 * lib/errors.js lists its errors. A code sent with more than one status lists each; a status it is sent with in more
 * than one situation lists each meaning. docs/errors.md's table is generated from here (`npm run docs:errors`), the
 * OpenAPI document's code lists must agree with it (test/core/error-catalog.test.ts), and errors.ts's `failure`
 * takes a code's status from here, so no call site names one.
 */

/** What a code means under one status: one sentence, or several when it is sent in several situations. */
type Meaning = string | readonly string[]

const MCP_BEARER_REFUSED = '(MCP) `/mcp` or `/mcp/oauth` with a Bearer token that is not an access token for this MCP endpoint, or has expired; ' +
  '`WWW-Authenticate` carries `error="invalid_token"`.'
const TOKEN_ROUTES_REFUSED = 'The token routes (`/api/wallet/tokens`) with a verification token that is not one this service signed (or was ' +
  'altered), has expired, or was revoked (it or an ancestor).'

export const ERROR_CATALOG = {
  VALIDATION_FAILED: { 400: 'The body, path or query does not match its schema (`details` says which field and why); a number in the path, query or headers must also be finite (`limit=Infinity` or `1e400` is refused).' },
  BODY_REQUIRED: { 400: 'No body, or an empty one, where a JSON object is needed.' },
  INVALID_JSON: { 400: 'The body is not valid JSON (the message says at which line and column, and what was expected there, without quoting the body), or has a `__proto__` key or a `constructor` key holding `prototype`.' },
  INVALID_UTF8: { 400: 'The body\'s bytes are not UTF-8 (for example Latin-1 text sent without converting it).' },
  INVALID_CONTENT_ENCODING: { 400: 'The body does not decode as its `Content-Encoding` (gzip, deflate or br) says it should.' },
  INVALID_CONTENT_LENGTH: { 400: 'Content-Length does not match the body.' },
  INVALID_AMOUNT: { 400: 'An amount or price has more than 6 decimal places.' },
  INVALID_CURSOR: { 400: '`cursor` is not a `nextCursor` this service gave out.' },
  INVALID_IDEMPOTENCY_KEY: { 400: '`Idempotency-Key` is not 1 to 255 visible ASCII characters.' },
  IDEMPOTENCY_WALLET_REQUIRED: { 400: '`Idempotency-Key` on a free Bee without a valid `X-Registry-Wallet-Token`: answers are stored only for wallet holders.' },
  INVALID_SCHEMA: { 400: 'A published Bee\'s inputSchema or outputSchema is invalid (as compiled by the Ajv that validates calls), has a remote or recursive `$ref`, expands past 64 KB or 10,000 nodes once its `$ref`s are inlined, has a `pattern` that may backtrack exponentially, uses a `format` that is not on the list of linear-time formats (see [Publishing Bees](publishers.md)), has an outputSchema that is not `type: "object"`, has a `default` anywhere but on a property\'s own schema (where it would never be applied), uses what OpenAPI 3.0 cannot express, or is one Zod\'s JSON Schema import cannot read as Apiary does (see [Publishing Bees](publishers.md)).' },
  INVALID_PRICE: { 400: 'A pay-per-use Bee priced 0 (or without `costPerCall`), a free Bee with a price, a subscription Bee without a `plan` (or whose `costPerCall` is not its `overagePrice`, or 0 without one), or a `plan` on another type.' },
  INVALID_EXECUTION: { 400: 'A Bee\'s `config` states an execution it cannot have: `eventSchema` on a Bee that is not `stream` (or a `stream` Bee without one), `maxRunSeconds` on a `sync` Bee or above `RUN_MAX_SECONDS`, or an `async` or `stream` Bee priced `subscription`.' },
  CALLBACK_URL_INVALID: { 400: 'A run\'s `Callback-Url` is not an absolute https URL (plain http only for hosts on `EGRESS_ALLOWLIST`), carries credentials, is longer than 2048 characters, or resolves to a loopback, private, link-local or reserved address (the egress guard, as for a published endpoint). Nothing was charged.' },
  ENDPOINT_FORBIDDEN: { 400: 'A published endpoint is not https, carries credentials, or resolves to a loopback, private, link-local or reserved address.' },
  IMPORT_SOURCE_FORBIDDEN: { 400: 'An import\'s source URL (an OpenAPI document\'s or an MCP server\'s) is not https, carries credentials, or resolves to a loopback, private, link-local or reserved address (the egress guard, as for a published endpoint).' },
  IMPORT_SOURCE_UNREADABLE: { 400: 'An import\'s source URL answered an error status, did not answer in `REMOTE_BEE_TIMEOUT_MS`, could not be reached, or is larger than `REMOTE_BEE_MAX_RESPONSE_BYTES`; an MCP server\'s could not be read as Streamable HTTP MCP (it wants a credential not given, say).' },
  IMPORT_DOCUMENT_INVALID: { 400: 'An OpenAPI import\'s document is not valid OpenAPI 3.0 or 3.1 (the message quotes the parser), or is neither JSON nor YAML.' },
  IMPORT_OPERATION_UNKNOWN: { 400: 'An import chose an operation (by `operationId`, or `method` and `path`) the document does not have, or a `tool` the MCP server does not list.' },
  IMPORT_OPERATION_REFUSED: { 400: 'An import chose an operation or tool that fails a check of its preview (its id, server, parameters, credential, input or output schema); the message lists them.' },
  IMPORTED_BEE_FIELD: { 400: 'A PATCH of an imported Bee\'s `endpoint`, `inputSchema` or `outputSchema`, which follow its OpenAPI operation: remove the Bee and import the operation again.' },
  WEBSITE_FORBIDDEN: { 400: 'A preparation\'s `websiteUrl` carries credentials or is a loopback, private or reserved IP address (host names are checked at every connection of the crawl).' },
  OUTPUT_INVALID: { 400: 'A reviewed `schemaOrgJsonLd` or `agentManifest` is not serialized JSON holding an object (`agentManifest` may be empty).' },
  PATCH_MIXED: { 400: 'A preparation PATCH with both new inputs and `outputFiles` edits.' },
  STATUS_MESSAGE_REQUIRED: { 400: 'Deprecating a Bee without a `statusMessage`.' },
  SUNSET_WITHOUT_DEPRECATION: { 400: '`sunsetAt` on a Bee that is not deprecated.' },
  INVALID_VERSION: { 400: 'A published Bee\'s `version` is not a semantic version (`1.2.3`), or a change\'s is not above the Bee\'s current one; or a `Bee-Version` (its MCP `_meta` or A2A metadata) is not `1`, `1.2` or `1.2.3`.' },
  BREAKING_CHANGE: { 400: 'A change of a Bee\'s schemas that breaks its callers (a removed or renamed property, a newly required input, a narrowed input type, enum or bound, a widened output type or enum, an output no longer required) without a new major `version`; `details` lists each, by where and why. See [Publishing Bees](publishers.md#versions).' },
  BODY_TOO_DEEP: { 400: 'The JSON body is nested more than 64 levels deep.' },
  NUL_CHARACTER: { 400: 'A string or key in the JSON body contains U+0000, which cannot be stored.' },
  BAD_URL: { 400: 'The URL does not decode (broken percent-encoding such as `%zz`).' },
  BALANCE_LIMIT_EXCEEDED: { 400: 'A deposit or opening balance would take a wallet above 9,000,000,000.' },
  BAD_REQUEST: { 400: 'Any other malformed request, including bytes the HTTP parser refuses (e.g. a body longer than its Content-Length).' },
  HOST_REQUIRED: { 400: 'An HTTP/1.1 request without a `Host` header (RFC 9112 requires one; HTTP/1.0 needs none).' },
  HOST_INVALID: { 400: '`/llms.txt`, `/llms/bees.txt`, `/llms-full.txt` or a Markdown view asked for with a `Host` (or `X-Forwarded-Host`) that is not a host name or address with an optional port: these pages print it into their links.' },
  UNAUTHORIZED: { 401: 'Admin or publisher route without a valid `Authorization: Bearer` admin token or publisher key (checked before the body is read); `/metrics` without `METRICS_TOKEN`.' },
  WALLET_TOKEN_MISSING: { 401: '`GET /api/wallet` or a subscription route without `X-Registry-Wallet-Token`.', 402: 'Pay-per-use Bee called without `X-Registry-Wallet-Token`.' },
  WALLET_NOT_FOUND: { 401: '`GET /api/wallet` or a subscription route with a token no wallet has.', 402: 'Pay-per-use Bee called with a token no wallet has.', 404: 'Admin route for a wallet id that does not exist.' },
  TOKEN_REQUIRED: { 401: '`POST /mcp/oauth` without `Authorization: Bearer`; `WWW-Authenticate` names the protected resource metadata (see [OAuth](agents/oauth.md)).' },
  TOKEN_INVALID: { 401: [MCP_BEARER_REFUSED, TOKEN_ROUTES_REFUSED], 402: 'The verification token paying is not one this service signed, or it was altered. Ask its holder for a new one.' },
  TOKEN_EXPIRED: { 401: [MCP_BEARER_REFUSED, TOKEN_ROUTES_REFUSED], 402: 'The verification token (or one it was minted from) has expired.' },
  TOKEN_REVOKED: { 401: TOKEN_ROUTES_REFUSED, 402: 'The verification token (or one it was minted from) was revoked.' },
  INSUFFICIENT_FUNDS: { 402: 'The wallet\'s balance is below the price.' },
  CURRENCY_MISMATCH: { 402: 'The wallet holds another currency than the Bee\'s price.' },
  WALLET_FROZEN: { 402: 'The operator froze the wallet.' },
  TOKEN_CAP_EXCEEDED: { 402: 'The price is more than the token, or one of its ancestors, has left of its cap; the message says how much is left.' },
  TOKEN_PER_CALL_CAP_EXCEEDED: { 402: 'The price is more than the token\'s (or an ancestor\'s) `perCallCap`.' },
  SUBSCRIPTION_REQUIRED: { 402: 'A subscription Bee called without a live subscription (or without a wallet token); `transactionDetails.plan` names the plan.' },
  SUBSCRIPTION_QUOTA_EXHAUSTED: { 402: 'The subscription\'s included calls of this period are used and the plan has no overage price; `transactionDetails.resetsAt` says when the next period starts.' },
  X402_PAYMENT_INVALID: { 402: '(x402 on) `PAYMENT-SIGNATURE` is not an x402 v2 payment, does not answer this call\'s offer, or the facilitator refused it (the message says why); a new offer is attached.' },
  X402_PAYMENT_USED: { 402: '(x402 on) This payment already paid for another call; sign a new one.' },
  X402_SETTLEMENT_FAILED: { 402: '(x402 on) The facilitator refused to settle after the Bee ran: the answer is not served and nothing moved.' },
  HOST_FORBIDDEN: { 403: '`/mcp` or `/a2a` on an instance listening on a loopback address, with a `Host` that is neither loopback (`localhost`, `127.0.0.1`, `[::1]`) nor `PUBLIC_BASE_URL`\'s host: a page whose name was rebound to this machine (DNS rebinding). See [Security model](operators/security.md#the-json-rpc-doors-origin-and-host).' },
  ORIGIN_FORBIDDEN: { 403: '`/mcp` or `/a2a` from a browser page whose `Origin` is neither in `CORS_ORIGINS` nor the service\'s own.' },
  ADMIN_DISABLED: { 403: 'Admin route while the server has no `ADMIN_TOKEN`.' },
  TOKEN_SCOPE_DENIED: { 403: 'The verification token (or an ancestor) has an allow-list that names neither this Bee nor its category.' },
  TOKEN_NARROWING_REQUIRED: { 403: 'Minting a child token wider than its parent: a larger cap than the parent has left, a later expiry, a higher `perCallCap`, or a Bee or category outside its allow-list; the message names which.' },
  BEE_RESERVED: { 403: 'A publisher changing a built-in Bee, anyone removing one, or changing more than its status.' },
  BEE_DEPRECATED: { 403: 'A publisher reviving a deprecated Bee (only the operator can).' },
  PUBLISHER_REQUIRED: { 403: 'Publishing with the admin token: Bees are published with a publisher key.' },
  BEE_NOT_FOUND: { 404: 'No Bee has this id.' },
  BEE_VERSION_NOT_FOUND: { 404: 'None of the Bee\'s versions matches the `Bee-Version` asked for (or its MCP `_meta` or A2A metadata); the message lists those it has.' },
  TOKEN_NOT_FOUND: { 404: 'Revoking a token that is not yours to manage (another wallet\'s, or, with a token, one that is not it or its descendant).' },
  PUBLISHER_NOT_FOUND: { 404: 'Rotating the key, or reading the earnings or recording a payout, of a publisher that does not exist, or (with a publisher key) of another publisher or the operator.' },
  SUBSCRIPTION_NOT_FOUND: { 404: 'Reading or canceling a subscription the wallet does not have (live) on that Bee.' },
  RUN_NOT_FOUND: { 404: 'No run you started has this id: another caller\'s run, or a free Bee\'s run read without its run key, answers the same.' },
  PREPARATION_NOT_FOUND: { 404: 'No preparation you manage has this id (another publisher\'s answers the same).' },
  PREPARATION_FILE_NOT_READY: { 404: 'The preparation\'s files are not produced yet.' },
  AGENT_MANIFEST_EMPTY: { 404: 'The crawl found nothing machine-usable on the site: there is no agent manifest.' },
  ROUTE_NOT_FOUND: { 404: 'No such path.' },
  NOT_FOUND: { 404: 'The metrics port (`METRICS_PORT`) asked for anything but `GET /metrics`.' },
  METHOD_NOT_ALLOWED: { 405: 'The path exists but not with this method; the `Allow` header lists its methods.' },
  REQUEST_TIMEOUT: { 408: 'The request, headers and body, did not arrive within `REQUEST_TIMEOUT_MS` (30 s); the connection is closed.' },
  BEE_INACTIVE: { 409: 'Executing an inactive Bee.' },
  IDEMPOTENCY_IN_FLIGHT: { 409: 'A request with this `Idempotency-Key` is still running; retry in a moment.' },
  PREPARATION_STATE: { 409: 'A preparation action its state does not allow (see the transitions in [Website preparation](preparations.md)).' },
  X402_PAYMENT_IN_FLIGHT: { 409: 'A call paid with this x402 payment is still running (or its settlement\'s outcome is unknown, until `IDEMPOTENCY_LEASE_SECONDS` pass).' },
  ALREADY_SUBSCRIBED: { 409: 'The wallet already has a live subscription to the Bee (nothing charged).' },
  BEE_NOT_SUBSCRIPTION: { 409: 'Subscribing to a Bee that is not priced `subscription`.' },
  PAYOUT_EXCEEDS_BALANCE: { 409: 'A payout larger than the account\'s balance in that currency; nothing was recorded.' },
  BEE_ID_TAKEN: { 409: 'Publishing an id that exists.' },
  BEE_ID_RESERVED: { 409: 'Publishing a built-in Bee\'s id.' },
  PUBLISHER_BEE_LIMIT: { 409: 'The publisher already has `PUBLISHER_MAX_BEES` Bees; remove one first.' },
  BEE_DOCUMENT_TOO_LARGE: { 413: 'A Bee\'s name, description and schemas would take more than `PUBLISHER_MAX_OPENAPI_BYTES` of its OpenAPI document.' },
  PAYLOAD_TOO_LARGE: { 413: 'The body is larger than `BODY_LIMIT_BYTES`, before or after decoding its `Content-Encoding`; the message names the limit ("the 2 MiB this service accepts").' },
  PARAM_TOO_LONG: { 414: 'A path parameter is longer than 100 characters.' },
  UNSUPPORTED_MEDIA_TYPE: { 415: 'The body is not `application/json`.' },
  UNSUPPORTED_CHARSET: { 415: 'The `Content-Type` names a charset other than UTF-8 (`charset=latin1`, `charset=utf-16`).' },
  UNSUPPORTED_CONTENT_ENCODING: { 415: 'A `Content-Encoding` other than gzip, deflate, br or identity, or more than one.' },
  EXPECTATION_FAILED: { 417: 'An `Expect` header other than `100-continue`, which is met as usual.' },
  IDEMPOTENCY_KEY_REUSED: { 422: 'The `Idempotency-Key` was used with a different request.' },
  RATE_LIMITED: { 429: 'This wallet, key or address has made its requests for the window; retry after `Retry-After` seconds (also `retryAfter` in the body). Nothing was charged. See [Rate limits](rate-limits.md).' },
  RUN_LIMIT_REACHED: { 429: 'The wallet token has `RUN_MAX_PER_WALLET` runs queued or running already; start the run once one of them ended (`Retry-After` suggests when to look). Nothing was charged.' },
  BEE_RATE_LIMITED: { 429: 'The Bee has taken the calls its own limit allows this minute, from all callers together; retry after `Retry-After` seconds. Nothing was charged.' },
  HEADERS_TOO_LARGE: { 431: 'The request headers are too large.' },
  INTERNAL_ERROR: { 500: 'Something failed on our side; any hold was voided (nothing charged).' },
  METRICS_FAILED: { 500: 'The metrics port (`METRICS_PORT`) could not collect the metrics.' },
  BEE_OUTPUT_INVALID: { 500: 'A built-in Bee produced output that breaks its own outputSchema; it is never served, and the charge is refunded.', 502: 'A published Bee answered with something that is not JSON or breaks its outputSchema; refunded.' },
  BEE_UPSTREAM_ERROR: { 502: 'A published Bee\'s endpoint answered an error status or refused the connection; refunded.' },
  BEE_RESPONSE_TOO_LARGE: { 502: 'A published Bee\'s answer is over `REMOTE_BEE_MAX_RESPONSE_BYTES`; refunded.' },
  BEE_EVENT_INVALID: { 502: 'A stream Bee sent an event that is not JSON or breaks its `eventSchema` (or a `progress` that is not 0 to 1): the stream ends with this `error` event (a run fails with it); refunded.' },
  BEE_ENDPOINT_FORBIDDEN: { 502: 'A published Bee\'s endpoint now resolves to a forbidden address; nothing was sent; refunded.' },
  X402_SETTLEMENT_UNKNOWN: { 502: 'The x402 facilitator did not say whether the payment settled: the answer is not served; see [x402](payments/x402.md).' },
  WEATHER_UPSTREAM_ERROR: { 502: 'Open-Meteo failed or could not be reached; the charge was refunded.' },
  X402_FACILITATOR_UNAVAILABLE: { 503: 'A call paid with x402 while the facilitator cannot be reached: the Bee did not run, nothing was charged.' },
  NOT_READY: { 503: '`/ready`: the instance is still loading its models after start-up (`Retry-After: 1`).' },
  STORE_UNAVAILABLE: { 503: 'The ledger database cannot be reached (stopped, restarting, failing over, its connection cut): any route or door that needs it, and `/ready`. `Retry-After: 1`; retry an execute call with the same `Idempotency-Key` (a call charged before the failure replays its answer; an unsettled hold is released). See [Failure modes](operators/failure-modes.md).' },
  STORE_FULL: { 503: 'The ledger database\'s disk is full: calls that write answer it, and `/ready`, until space is freed. `Retry-After: 1`, as above. (The OAuth server\'s endpoints say either as OAuth does: `{"error": "temporarily_unavailable"}`.)' },
  OVERLOADED: { 503: 'The instance is shedding load (event-loop delay, heap or RSS over its `PRESSURE_*` limit): nothing ran or was charged; retry after `Retry-After` seconds, or on another instance. `/ready` answers it too meanwhile.' },
  STREAMS_FULL: { 503: 'The instance holds `STREAM_MAX_OPEN` open streams (`Accept: text/event-stream`) already: nothing ran or was charged; retry after `Retry-After` seconds, or on another instance.' },
  STREAM_TOO_SLOW: { 503: 'The client read a stream more slowly than it came: `STREAM_BUFFER_BYTES` waited unread, so the stream ends with this `error` event; refunded. Found in an `error` event, not as an answer.' },
  HOLD_EXPIRED: { 503: 'A paid call\'s hold was settled before its answer was ready (it ran past `HOLD_TIMEOUT_SECONDS` and the sweeper voided it): the answer is not served and nothing was charged. Retry, with the same `Idempotency-Key` if you sent one.' },
  WEATHER_UPSTREAM_TIMEOUT: { 504: 'Open-Meteo did not answer in `WEATHER_TIMEOUT_MS`; the charge was refunded.' },
  BEE_TIMEOUT: { 504: 'A published Bee did not answer in `REMOTE_BEE_TIMEOUT_MS` (an async Bee\'s run: in its `maxRunSeconds`); refunded.' },
  RUN_EXPIRED: { 504: 'A run of an async Bee was not finished by its `expiresAt` (it waited for a worker, or lay with a worker that died, past `RUN_QUEUE_SECONDS`): its hold was voided. Found in the run\'s `error`, not as an answer.' }
} as const satisfies Record<string, Partial<Record<number, Meaning>>>

/** A code the service can answer with. */
export type ErrorCode = keyof typeof ERROR_CATALOG

type Statuses = { [C in ErrorCode]: keyof (typeof ERROR_CATALOG)[C] & number }

/** The statuses `C` is sent with (of a union of codes, those any of them is sent with). */
export type StatusOf<C extends ErrorCode> = Statuses[C]

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never

/** Every status the service refuses with. */
export type ErrorStatus = StatusOf<ErrorCode>

/** Codes by the status they are sent with, each one the catalog gives that status (a route's or a Bee's refusals). */
export type CodesByStatus = { [S in ErrorStatus]?: readonly CodeWithStatus<S>[] }

/** A code sent with one status only: `failure` needs no more than the code. */
export type OneStatusCode = { [C in ErrorCode]: IsUnion<StatusOf<C>> extends true ? never : C }[ErrorCode]

/** The codes sent with `S`. */
export type CodeWithStatus<S extends number> = { [C in ErrorCode]: S extends StatusOf<C> ? C : never }[ErrorCode]

/** One row of the catalog: a code, a status it is sent with and one meaning it has there. */
export interface CatalogUse { code: ErrorCode, status: number, when: string }

/** Every (code, status, meaning), by status, in the catalog's order within a status. */
export function catalogUses (): CatalogUse[] {
  const uses = Object.entries(ERROR_CATALOG).flatMap(([code, statuses]) =>
    Object.entries(statuses as Record<string, Meaning>).flatMap(([status, meaning]) =>
      (typeof meaning === 'string' ? [meaning] : meaning).map((when) => ({ code: code as ErrorCode, status: Number(status), when }))))
  return uses.sort((a, b) => a.status - b.status)
}

/** The statuses the catalog gives `code`; empty for a string that is not a code. */
export function statusesOf (code: string): number[] {
  const statuses: Partial<Record<number, Meaning>> | undefined = (ERROR_CATALOG as Record<string, Partial<Record<number, Meaning>>>)[code]
  return statuses === undefined ? [] : Object.keys(statuses).map(Number)
}

/** The one status of a code sent with one status. */
export const statusOf = <C extends OneStatusCode>(code: C): StatusOf<C> => statusesOf(code)[0] as StatusOf<C>
