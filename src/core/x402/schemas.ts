import { Type, type Static } from 'typebox'

/** The request and response headers of x402 v2's HTTP transport (HTTP header names are case-insensitive). */
export const PAYMENT_SIGNATURE_HEADER = 'payment-signature'
export const PAYMENT_REQUIRED_HEADER = 'payment-required'
export const PAYMENT_RESPONSE_HEADER = 'payment-response'

/** The `_meta` keys of x402's MCP transport. */
export const MCP_PAYMENT_META = 'x402/payment'
export const MCP_PAYMENT_RESPONSE_META = 'x402/payment-response'

export const X402Settlement = Type.Object({
  id: Type.Integer({ description: 'Settlement number.' }),
  paymentKey: Type.String({ description: 'The payment\'s identity: network, asset, payer and authorization nonce, joined by colons.' }),
  beeId: Type.String({ description: 'The Bee whose call the payment bought.' }),
  requestId: Type.String({ description: 'The request that made the call (its X-Request-Id).' }),
  network: Type.String({ description: 'CAIP-2 network the payment settled on, e.g. eip155:8453.' }),
  asset: Type.String({ description: 'Token contract address of the asset paid.' }),
  amount: Type.String({ description: 'Amount paid, in the asset\'s atomic units (a decimal integer string).' }),
  payTo: Type.String({ description: 'Address that received the payment (X402_PAY_TO).' }),
  payer: Type.String({ description: 'Address that paid.' }),
  transaction: Type.String({ description: 'Transaction hash of the settlement, as the facilitator reported it.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When the settlement was journaled.' })
}, { description: 'One x402 payment, settled after the call it paid for succeeded.' })
export type X402Settlement = Static<typeof X402Settlement>
