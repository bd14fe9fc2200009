import type { OAuthRepository } from '../ledger/oauth/oauth-repository.js'

type Payload = Record<string, unknown>

/**
 * oidc-provider's storage adapter over the ledger: every model it keeps (clients, grants, codes,
 * refresh tokens, interactions, sessions) is a row, so every instance on the database shares them and
 * a restart loses nothing. `onGrantDestroyed` hears of a revoked grant with its account, which here is
 * the verification token the grant spends: revoking the grant revokes the budget.
 */
export function ledgerAdapter (repository: OAuthRepository, onGrantDestroyed: (accountId: string) => Promise<void>) {
  return class LedgerAdapter {
    readonly #model: string

    constructor (model: string) {
      this.#model = model
    }

    async upsert (id: string, payload: Payload, expiresIn?: number): Promise<void> {
      await repository.upsert(this.#model, id, {
        payload,
        grantId: typeof payload.grantId === 'string' ? payload.grantId : null,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        expiresAt: expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000).toISOString()
      })
    }

    async find (id: string): Promise<Payload | undefined> {
      return withConsumed(await repository.find(this.#model, id))
    }

    async findByUid (uid: string): Promise<Payload | undefined> {
      return withConsumed(await repository.findByUid(this.#model, uid))
    }

    // Device flow only, which is not enabled.
    async findByUserCode (): Promise<undefined> {
      return undefined
    }

    async consume (id: string): Promise<void> {
      await repository.consume(this.#model, id)
    }

    async destroy (id: string): Promise<void> {
      if (this.#model === 'Grant') {
        const grant = await repository.find(this.#model, id)
        if (typeof grant?.payload.accountId === 'string') await onGrantDestroyed(grant.payload.accountId)
      }
      await repository.destroy(this.#model, id)
    }

    async revokeByGrantId (grantId: string): Promise<void> {
      await repository.revokeByGrantId(this.#model, grantId)
    }
  }
}

/** The payload as the provider reads it: `consumed` (seconds) set once the row was consumed. */
function withConsumed (record: Awaited<ReturnType<OAuthRepository['find']>>): Payload | undefined {
  if (record === null) return undefined
  return record.consumedAt === null ? record.payload : { ...record.payload, consumed: Math.floor(Date.parse(record.consumedAt) / 1000) }
}
