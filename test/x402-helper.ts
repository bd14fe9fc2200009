import { x402Client as X402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { NETWORK, PAY_TO, type FakeFacilitator } from '../examples/x402/facilitator.js'

/** The configuration that turns x402 on against the fake facilitator (Base Sepolia USDC, @x402/evm's default there). */
export const x402Env = (facilitator: FakeFacilitator, extra: Record<string, string> = {}) => ({
  X402_FACILITATOR_URL: facilitator.url,
  X402_NETWORK: NETWORK,
  X402_PAY_TO: PAY_TO,
  ...extra
})

/**
 * A payer as an agent would be one: the real x402 client with the `exact` EVM scheme and a key made
 * here (signing an EIP-3009 authorization needs no network).
 */
export function newPayer () {
  const account = privateKeyToAccount(generatePrivateKey())
  const client = registerExactEvmScheme(new X402Client(), { signer: account })
  return {
    address: account.address,
    client,
    /** fetch that answers a 402 by paying its offer and retrying, as @x402/fetch does. */
    fetch: wrapFetchWithPayment(fetch, client),
    /** A signed payment for an offer, as the PAYMENT-SIGNATURE header carries it. */
    async sign (offer: PaymentRequired): Promise<{ payload: PaymentPayload, header: string }> {
      const payload = await client.createPaymentPayload(offer)
      return { payload, header: encodePaymentSignatureHeader(payload) }
    }
  }
}

/** The offer in a 402's PAYMENT-REQUIRED header. */
export function offerOf (header: string | string[] | undefined): PaymentRequired {
  if (typeof header !== 'string') throw new Error('no PAYMENT-REQUIRED header')
  return decodePaymentRequiredHeader(header)
}
