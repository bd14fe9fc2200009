import fp from 'fastify-plugin'
import { BeeRecord, ErrorBody, SubscriptionPlan, HoneyEnvelope, JournalEntry, PaymentRequiredBody, RateLimitedBody, ValidationErrorBody, Wallet } from '../src/core/schemas.js'
import { EarningsBalance, EarningsEntry } from '../src/core/earnings/schemas.js'
import { Subscription, SubscriptionCall } from '../src/core/subscriptions/schemas.js'
import { Preparation } from '../src/core/preparations/schemas.js'
import { Run } from '../src/core/runs/schemas.js'
import { WalletTokenView } from '../src/core/tokens/schemas.js'
import { JsonRpcErrorResponse as A2aErrorResponse } from '../src/http/a2a/json-rpc.js'
import { JsonRpcError as McpErrorResponse } from '../src/http/mcp/json-rpc.js'

/**
 * The shapes many answers share, registered once by their `$id`: routes use them by `$ref` (see `ref`), so
 * the serializer still writes them in full while the OpenAPI document holds each once, in
 * components/schemas under its `$id` (plugins/openapi.ts names them so).
 */
export default fp(async (fastify) => {
  for (const schema of [SubscriptionPlan, ErrorBody, ValidationErrorBody, PaymentRequiredBody, RateLimitedBody, BeeRecord, HoneyEnvelope, Wallet, JournalEntry,
    McpErrorResponse, A2aErrorResponse, Preparation, WalletTokenView, EarningsEntry, EarningsBalance, Subscription, SubscriptionCall, Run]) {
    fastify.addSchema(schema)
  }
}, { name: 'shared-schemas' })
