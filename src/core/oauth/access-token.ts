import type { Ledger } from '../ledger/ledger.js'
import { fromMicros } from '../money.js'
import { tokenState } from '../tokens/holder.js'
import { mintTokenRow, type CategoryOf } from '../tokens/mint.js'
import { termsClaims, TOKEN_ISSUER } from '../tokens/verifier.js'

export interface AccessTokenOptions {
  ledger: Ledger
  categoryOf: CategoryOf
  /** Longest an access token lives; the budget's own expiry cuts it shorter. */
  ttlSeconds: number
  now: () => number
}

/** The JWT an access token is about to be signed as, as oidc-provider hands it to its customizer. */
export interface StructuredToken { header?: Record<string, unknown>, payload: Record<string, unknown> }

/**
 * Makes each access token the provider issues a verification token. The grant's account is the
 * budget the wallet holder set on the consent page (a root verification token); each access token is
 * a child of it, a row of its own minted here (capped at what the budget has left, expiring with the
 * access token), and the JWT carries the claims every verification token carries (iss `apiary`, sub the
 * wallet, jti the row). So the ledger enforces the caps at every call, the tokens are listed and
 * revocable at /api/wallet/tokens, and revoking the budget there ends the client's access: no new
 * access token is issued from a revoked, expired or spent budget (invalid_grant).
 */
export function accessTokenCustomizer (options: AccessTokenOptions) {
  const { ledger } = options
  return async (clientName: string, budgetId: string, token: StructuredToken): Promise<void> => {
    // Imported here, not at the top: oidc-provider is loaded on the first OAuth request (this runs inside one),
    // never at start, where it costs time and on Node 20 prints an "Unsupported runtime" warning.
    const { errors } = await import('oidc-provider')
    // InvalidGrant's argument is a detail oidc-provider only logs; the client is told why in error_description.
    const refusal = (why: string) => Object.assign(new errors.InvalidGrant(), { error_description: why })
    const nowMs = options.now()
    const budget = await ledger.tokens.get(budgetId)
    const refused = tokenState(budget, nowMs)
    if (budget === null || refused !== null) throw refusal(`the budget this client was granted is ${refused === 'TOKEN_EXPIRED' ? 'expired' : 'revoked'}; connect again to grant a new one`)
    const left = budget.capMicros - budget.spentMicros
    if (left <= 0) throw refusal(`the budget this client was granted (${fromMicros(budget.capMicros)}) is spent; connect again to grant a new one`)
    const wallet = await ledger.wallets.get(budget.walletId)
    if (wallet === null) throw refusal('the wallet this client was granted a budget from is gone')
    const budgetLeftSeconds = Math.floor((Date.parse(budget.expiresAt) - nowMs) / 1000)
    const row = await mintTokenRow(ledger, { walletId: wallet.id, currency: wallet.currency, token: budget }, {
      capMicros: left,
      perCallCapMicros: null,
      expiresInSeconds: Math.max(1, Math.min(options.ttlSeconds, budgetLeftSeconds)),
      bees: null,
      categories: null,
      label: `OAuth access token: ${clientName}`.slice(0, 200)
    }, options.categoryOf, nowMs)
    Object.assign(token.payload, termsClaims(row, wallet.currency), {
      iss: TOKEN_ISSUER,
      sub: wallet.id,
      jti: row.id,
      exp: Math.floor(Date.parse(row.expiresAt) / 1000)
    })
  }
}
