import type { PaymentRequired, SettleResponse } from '@x402/core/types'
import fp from 'fastify-plugin'
import { x402Enabled } from '../src/config.js'
import { X402Gate } from '../src/core/x402/gate.js'

/** x402 over HTTP: the gate, and x402's header encodings (base64 JSON) from @x402/core. */
export interface X402Http {
  gate: X402Gate
  encodeRequired (offer: PaymentRequired): string
  encodeResponse (settlement: SettleResponse): string
  /** The payload in a PAYMENT-SIGNATURE header; what cannot be decoded is passed on as is, for the core to refuse. */
  decodeSignature (header: string): unknown
}

declare module 'fastify' {
  interface FastifyInstance {
    /** x402 when the operator configured it (X402_*), else null. */
    x402: X402Http | null
  }
}

/**
 * Opens the x402 gate when X402_FACILITATOR_URL, X402_NETWORK and X402_PAY_TO are set. Its libraries
 * are loaded only then: a service without x402 starts without them.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  if (!x402Enabled(config)) {
    fastify.decorate('x402', null)
    return
  }
  const [gate, { encodePaymentRequiredHeader, encodePaymentResponseHeader, decodePaymentSignatureHeader }] = await Promise.all([
    X402Gate.open({
      facilitatorUrl: config.X402_FACILITATOR_URL as string,
      network: config.X402_NETWORK as string,
      payTo: config.X402_PAY_TO as string,
      asset: config.X402_ASSET,
      assetName: config.X402_ASSET_NAME,
      assetVersion: config.X402_ASSET_VERSION,
      assetDecimals: config.X402_ASSET_DECIMALS,
      maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
      facilitatorTimeoutMs: config.X402_FACILITATOR_TIMEOUT_MS
    }, fastify.log),
    import('@x402/core/http')
  ])
  fastify.decorate('x402', {
    gate,
    encodeRequired: encodePaymentRequiredHeader,
    encodeResponse: encodePaymentResponseHeader,
    decodeSignature (header: string) {
      try {
        return decodePaymentSignatureHeader(header)
      } catch {
        return header
      }
    }
  })
}, { name: 'x402', dependencies: ['config'] })
