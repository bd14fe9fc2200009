import type { PaymentRequired } from '@x402/core/types'
import type { CodeWithStatus } from '../error-catalog.js'
import { ApiError, failure } from '../errors.js'
import { WALLET_HEADER_NAME } from '../schemas.js'
import type { TokenSigner } from '../tokens/verifier.js'
import type { X402Gate } from '../x402/gate.js'
import type { Execution } from './execution.js'

/** What a door needs to say 402: where a caller learns to get a wallet (none configured: no link), and x402 when it is on. */
export interface PaymentOptions {
  holdTimeoutSeconds: number
  walletDocsUrl: string | null
  x402: X402Gate | null
  /** Verifies the verification tokens calls pay with. */
  tokens: TokenSigner
}

/** A 402 that may carry an x402 offer, which each door puts where its x402 transport expects it (HTTP: PAYMENT-REQUIRED). */
export class PaymentRequiredError extends ApiError<CodeWithStatus<402>> {
  readonly offer: PaymentRequired | null

  constructor (code: CodeWithStatus<402>, message: string, extra: Record<string, unknown>, offer: PaymentRequired | null) {
    super(402, code, message, extra)
    this.offer = offer
  }
}

/**
 * The 402s of a verification token that cannot pay for a call (token-payment.ts), with what its holder asks the
 * token's issuer for: the holder has no wallet of their own to fund, only that token.
 */
export const TOKEN_PAYMENT_REFUSALS = {
  TOKEN_INVALID: 'a new token',
  TOKEN_EXPIRED: 'a new token',
  TOKEN_REVOKED: 'a new token',
  TOKEN_CAP_EXCEEDED: 'a token with a higher cap (or more of it left)',
  TOKEN_PER_CALL_CAP_EXCEEDED: 'a token with a higher perCallCap'
} as const satisfies Partial<Record<CodeWithStatus<402>, string>>

const askOf = (code: CodeWithStatus<402>): string | undefined => (TOKEN_PAYMENT_REFUSALS as Partial<Record<CodeWithStatus<402>, string>>)[code]

/**
 * The 402 of every door: the spec's fields, plus what an agent needs to pay without reading docs
 * first: one sentence on how to pay, where to get a wallet and, when x402 is on, that an offer is attached.
 */
export async function paymentRequired (execution: Execution, options: PaymentOptions, code: CodeWithStatus<402>, message: string,
  details: Record<string, unknown> = {}): Promise<ApiError> {
  const { bee } = execution
  const { costPerCall, currency, plan } = bee.record.pricing
  const docs = options.walletDocsUrl
  // A subscription Bee is paid for by the period: the wallet must subscribe first, then call.
  const needs = plan === undefined
    ? `holding at least ${costPerCall} ${currency}`
    : `subscribed to it (POST /api/bees/${bee.record.id}/subscription with that header pays ${plan.periodPrice} ${currency} a period)`
  const offer = options.x402 === null ? null : await options.x402.offer(bee, execution.resource, message)
  const withWallet = `the same request again with the header ${WALLET_HEADER_NAME} set to the token of a ${currency} wallet ${needs}; ` +
    'this service\'s operator issues wallets and their tokens' + (docs === null ? '.' : ' (see walletDocs).')
  const ask = askOf(code)
  return new PaymentRequiredError(code, message, {
    transactionDetails: {
      beeId: bee.record.id,
      cost: costPerCall,
      currency,
      requiredHeader: WALLET_HEADER_NAME,
      howToPay: (ask === undefined
        ? `Send ${withWallet}`
        : `The verification token in ${WALLET_HEADER_NAME} cannot pay for this call: ask whoever issued it for ${ask}, ` +
          `or pay with a wallet directly: send ${withWallet}`) +
        (offer === null ? '' : ' Or pay for this call alone with x402 (see x402).'),
      ...(docs === null ? {} : { walletDocs: docs }),
      ...details,
      ...(offer === null
        ? {}
        : {
            x402: 'An x402 v2 offer for this call is attached: over HTTP in the PAYMENT-REQUIRED header (send the signed payment ' +
              'in PAYMENT-SIGNATURE), over MCP in this result (send it in _meta["x402/payment"]). The payment settles only if the call succeeds.'
          })
    }
  }, offer)
}

export const x402Unavailable = () => failure('X402_FACILITATOR_UNAVAILABLE',
  'The x402 facilitator that verifies and settles payments cannot be reached; the Bee was not run and nothing was charged. Retry later, or pay with a wallet.')
