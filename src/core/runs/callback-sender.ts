import { Webhook } from 'standardwebhooks'
import { LazyAgent } from '../lazy-agent.js'
import { guardedConnector, type EgressPolicy } from '../publishing/egress.js'
import type { StoredCallback } from '../ledger/run-callbacks/run-callback-repository.js'

/** How long a receiver has to answer a delivery; longer is a failed attempt, retried. */
export const CALLBACK_TIMEOUT_MS = 10_000

/** A2A's push notification token travels in this header (the A2A Python SDK's spelling). */
export const NOTIFICATION_TOKEN_HEADER = 'x-a2a-notification-token'

/** What one delivery attempt came to: the receiver's status, or why none came. */
export type SendResult = { status: number } | { error: string }

/**
 * Delivers a run's completion webhook (or an A2A push notification, with its token and Authorization):
 * one POST of the JSON body, signed as Standard Webhooks says (webhook-id,
 * webhook-timestamp, webhook-signature: HMAC-SHA256 by the standardwebhooks library), through the egress guard's
 * connector (never to a loopback, private or reserved address, bar the operator's EGRESS_ALLOWLIST), without
 * following redirects. The answer's body is not read past its status.
 */
export class CallbackSender {
  readonly #agent: LazyAgent

  constructor (policy: EgressPolicy) {
    this.#agent = new LazyAgent((undici) => new undici.Agent({
      connections: 8, connect: guardedConnector(undici, policy, CALLBACK_TIMEOUT_MS), headersTimeout: CALLBACK_TIMEOUT_MS, bodyTimeout: CALLBACK_TIMEOUT_MS
    }))
  }

  async send (callback: StoredCallback, messageId: string, body: string): Promise<SendResult> {
    const at = new Date()
    const headers: Record<string, string> = {
      // A2A 1.0's push notifications are its own media type (A2A §4.3.3).
      'content-type': callback.format === 'a2a' ? 'application/a2a+json' : 'application/json',
      'user-agent': 'Apiary-Webhooks/1.0',
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(callback.secret).sign(messageId, at, body)
    }
    if (callback.token !== null) headers[NOTIFICATION_TOKEN_HEADER] = callback.token
    if (callback.authentication !== null) headers.authorization = `${callback.authentication.scheme} ${callback.authentication.credentials}`.trim()
    try {
      const { undici, agent } = await this.#agent.get()
      const response = await undici.request(callback.url, {
        method: 'POST', dispatcher: agent, headers, body, signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS)
      })
      await response.body.dump()
      return { status: response.statusCode }
    } catch (error) {
      const { code, message } = error as { code?: string, message?: string }
      return { error: code === 'EGRESS_FORBIDDEN' ? 'the URL resolves to a forbidden address' : `${code ?? 'ERROR'}: ${message ?? 'no answer'}`.slice(0, 200) }
    }
  }

  async close (): Promise<void> {
    await this.#agent.close()
  }
}
