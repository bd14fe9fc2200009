import type { x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { Logger } from '../logger.js'
import type { RegisteredBee } from '../registry.js'

/** What the operator configured (X402_*): where payments settle and in what. */
export interface X402Settings {
  facilitatorUrl: string
  /** CAIP-2, e.g. eip155:8453. */
  network: string
  payTo: string
  /** The token contract; unset: the network's default USD stablecoin in @x402/evm's table. */
  asset: string | undefined
  /** EIP-712 domain of the asset (its name and version), needed when it is not in @x402/evm's table. */
  assetName: string | undefined
  assetVersion: string | undefined
  /** Decimals of the asset when it is not in the table; at least 6, so that every micro-unit price is exact. */
  assetDecimals: number
  /** How long a signed payment stays valid: long enough to verify, run the Bee and settle. */
  maxTimeoutSeconds: number
  facilitatorTimeoutMs: number
}

/** The ISO 4217 currency a USD stablecoin stands for: only Bees priced in it are offered for x402. */
const ASSET_CURRENCY = 'USD'

/** Why a payment cannot be taken: the payer's fault (`invalid`, a 402) or the facilitator's (`unavailable`). */
export type Refusal = { ok: false, kind: 'invalid' | 'unavailable', reason: string }

/** A payment the facilitator verified, to be settled once the Bee succeeded. */
export interface VerifiedPayment { payload: PaymentPayload, requirements: PaymentRequirements, payer: string }

export type Verification = { ok: true, payment: VerifiedPayment } | Refusal

/** A settle that failed for sure (`refused`: nothing moved) or may have moved money (`unknown`: a timeout, a dropped connection). */
export type Settlement = { ok: true, response: SettleResponse } | { ok: false, kind: 'refused' | 'unknown', reason: string }

/** The configured asset, and how many of its atomic units make one micro-unit of the Bee's price. */
interface AssetPrice { asset: string, extra: Record<string, unknown>, scale: bigint }

const RETRY_INITIALIZE_MS = 5000

const messageOf = (error: unknown) => error instanceof Error ? error.message : String(error)

/**
 * x402 v2 on @x402/core's resource server: offers for a Bee's price in the configured asset, and
 * verification and settlement through the facilitator. Protocol-neutral: each door carries the
 * offer and the payment in its own transport (HTTP headers, MCP `_meta`).
 */
export class X402Gate {
  readonly #server: x402ResourceServer
  readonly #settings: X402Settings
  readonly #price: AssetPrice
  readonly #log: Logger
  #initialized: Promise<boolean> | null = null
  #failedAt = 0
  readonly #requirements = new Map<number, PaymentRequirements>()

  private constructor (server: x402ResourceServer, settings: X402Settings, price: AssetPrice, log: Logger) {
    this.#server = server
    this.#settings = settings
    this.#price = price
    this.#log = log
  }

  /**
   * Loads the x402 libraries (only when x402 is configured: they are large) and resolves the asset.
   * The facilitator is asked what it supports in the background: start-up does not wait on it.
   */
  static async open (settings: X402Settings, log: Logger): Promise<X402Gate> {
    const [{ x402ResourceServer: ResourceServer, HTTPFacilitatorClient }, { ExactEvmScheme }, { findDefaultAsset, getDefaultAsset }] = await Promise.all([
      import('@x402/core/server'), import('@x402/evm/exact/server'), import('@x402/evm')
    ])
    const known = settings.asset === undefined
      ? getDefaultAsset(settings.network as `${string}:${string}`)
      : findDefaultAsset(settings.asset, settings.network as `${string}:${string}`)
    const name = settings.assetName ?? known?.name
    const version = settings.assetVersion ?? known?.version
    if (name === undefined || version === undefined) {
      throw new Error(`X402_ASSET ${String(settings.asset)} is not a known asset on ${settings.network}: set X402_ASSET_NAME and ` +
        'X402_ASSET_VERSION to its EIP-712 domain (the token contract\'s name() and version())')
    }
    const decimals = known?.decimals ?? settings.assetDecimals
    const server = new ResourceServer(new HTTPFacilitatorClient({ url: settings.facilitatorUrl, timeoutMs: settings.facilitatorTimeoutMs }))
      .register(settings.network as `${string}:${string}`, new ExactEvmScheme())
    const gate = new X402Gate(server, settings, {
      asset: settings.asset ?? (known as { asset: string }).asset,
      extra: { name, version },
      scale: 10n ** BigInt(decimals - 6)
    }, log)
    void gate.#ready()
    return gate
  }

  /** Whether the facilitator said what it supports; asked again at most every few seconds while it cannot be reached. */
  async #ready (): Promise<boolean> {
    if (this.#initialized === null && Date.now() - this.#failedAt >= RETRY_INITIALIZE_MS) {
      this.#initialized = this.#server.initialize().then(() => true, (error: unknown) => {
        this.#log.warn({ err: error, facilitator: this.#settings.facilitatorUrl }, 'x402 facilitator unreachable: no x402 offers until it answers')
        this.#failedAt = Date.now()
        this.#initialized = null
        return false
      })
    }
    return await (this.#initialized ?? false)
  }

  /** Whether this Bee can be paid with x402: pay-per-use (not by subscription), priced in the currency the asset stands for. */
  accepts (bee: RegisteredBee): boolean {
    return bee.paid && bee.plan === null && bee.record.pricing.currency === ASSET_CURRENCY
  }

  /** The one `exact` requirement for a Bee's price, built by the resource server; null while the facilitator cannot be reached. */
  async requirementsFor (bee: RegisteredBee): Promise<PaymentRequirements | null> {
    const cached = this.#requirements.get(bee.priceMicros)
    if (cached !== undefined) return cached
    if (!await this.#ready()) return null
    const { network, payTo, maxTimeoutSeconds } = this.#settings
    const [requirements] = await this.#server.buildPaymentRequirements({
      scheme: 'exact',
      network: network as `${string}:${string}`,
      payTo,
      maxTimeoutSeconds,
      price: { asset: this.#price.asset, amount: String(BigInt(bee.priceMicros) * this.#price.scale), extra: this.#price.extra }
    })
    if (requirements === undefined) return null
    // Prices are few (one per distinct Bee price): the cache stays small.
    this.#requirements.set(bee.priceMicros, requirements)
    return requirements
  }

  /** The x402 v2 PaymentRequired for a call of this Bee, or null when none can be made (not offered, facilitator down). */
  async offer (bee: RegisteredBee, resource: string, error: string): Promise<PaymentRequired | null> {
    if (!this.accepts(bee)) return null
    const requirements = await this.requirementsFor(bee)
    if (requirements === null) return null
    return await this.#server.createPaymentRequiredResponse([requirements], { url: resource, mimeType: 'application/json' }, error)
  }

  /** The requirement a payment answers, if it answers this Bee's offer (scheme, network, asset, amount and payee). */
  async match (bee: RegisteredBee, payload: PaymentPayload): Promise<PaymentRequirements | Refusal> {
    const requirements = await this.requirementsFor(bee)
    if (requirements === null) return { ok: false, kind: 'unavailable', reason: 'the x402 facilitator cannot be reached' }
    const matched = this.#server.findMatchingRequirements([requirements], payload)
    return matched ?? { ok: false, kind: 'invalid', reason: 'the payment does not answer this call\'s offer (scheme, network, asset, amount or payee differ)' }
  }

  /** The facilitator's /verify: is the signed payment good for these requirements now? */
  async verify (payload: PaymentPayload, requirements: PaymentRequirements): Promise<Verification> {
    try {
      const verified = await this.#server.verifyPayment(payload, requirements)
      if (!verified.isValid) return { ok: false, kind: 'invalid', reason: verified.invalidMessage ?? verified.invalidReason ?? 'invalid payment' }
      return { ok: true, payment: { payload, requirements, payer: verified.payer ?? '' } }
    } catch (error) {
      const status = (error as { statusCode?: unknown }).statusCode
      if (error instanceof Error && error.name === 'VerifyError' && typeof status === 'number' && status < 500) {
        const { invalidMessage, invalidReason } = error as Error & { invalidMessage?: string, invalidReason?: string }
        return { ok: false, kind: 'invalid', reason: invalidMessage ?? invalidReason ?? error.message }
      }
      this.#log.error({ err: error }, 'x402 verify failed')
      return { ok: false, kind: 'unavailable', reason: messageOf(error) }
    }
  }

  /**
   * The facilitator's /settle, after the Bee succeeded. A refusal it states (success false, or a
   * settle error it answered) moved nothing; anything else (a timeout, a dropped connection) may have.
   */
  async settle ({ payload, requirements }: VerifiedPayment): Promise<Settlement> {
    try {
      const settled = await this.#server.settlePayment(payload, requirements)
      if (settled.success) return { ok: true, response: settled }
      return { ok: false, kind: 'refused', reason: settled.errorMessage ?? settled.errorReason ?? 'settlement failed' }
    } catch (error) {
      if (error instanceof Error && error.name === 'SettleError') {
        const { errorMessage, errorReason } = error as Error & { errorMessage?: string, errorReason?: string }
        return { ok: false, kind: 'refused', reason: errorMessage ?? errorReason ?? error.message }
      }
      this.#log.error({ err: error }, 'x402 settle outcome unknown')
      return { ok: false, kind: 'unknown', reason: messageOf(error) }
    }
  }
}
