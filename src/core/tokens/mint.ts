import { randomBytes } from 'node:crypto'
import { failure } from '../errors.js'
import type { Ledger } from '../ledger/ledger.js'
import type { WalletToken } from '../ledger/tokens/token-repository.js'
import { fromMicros } from '../money.js'
import type { TokenHolder } from './holder.js'
import type { TokenSigner } from './verifier.js'

/** A token's lifetime when none is asked for (a child's is also cut to its parent's). */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 24 * 3600

export interface MintRequest {
  capMicros: number
  perCallCapMicros: number | null
  expiresInSeconds: number | null
  bees: string[] | null
  categories: string[] | null
  label: string | null
}

const tooWide = (what: string) => failure('TOKEN_NARROWING_REQUIRED',
  `A token minted by a token may only narrow it: ${what}. Ask for less, or mint from the wallet key.`)

/** A parent's scope as a check: may a child name this Bee, this category? (null scope: anything). */
/** A Bee's category (looked up in the registry, which may read it from the catalog); undefined for no such Bee. */
export type CategoryOf = (beeId: string) => Promise<string | undefined>

function scopeOf (parent: WalletToken, categoryOf: CategoryOf) {
  const open = parent.bees === null && parent.categories === null
  const categories = parent.categories ?? []
  return {
    bee: async (beeId: string) => open || (parent.bees ?? []).includes(beeId) || categories.includes(await categoryOf(beeId) ?? ''),
    category: (category: string) => open || categories.includes(category)
  }
}

/**
 * The child's terms, each no wider than its parent's: cap within what the parent has left, expiry no
 * later, per-call cap no higher, allow-list inside the parent's (left out: the parent's). The ledger
 * checks every ancestor at each hold anyway; this refuses a child that could never spend as asked.
 */
async function narrowed (parent: WalletToken, request: MintRequest, expiresAtMs: number, categoryOf: CategoryOf): Promise<MintRequest> {
  const left = parent.capMicros - parent.spentMicros
  if (request.capMicros > left) throw tooWide(`cap ${fromMicros(request.capMicros)} is more than the ${fromMicros(left)} its parent has left`)
  if (expiresAtMs > Date.parse(parent.expiresAt)) throw tooWide(`it would expire after its parent (${parent.expiresAt})`)
  const parentPerCall = parent.perCallCapMicros
  if (parentPerCall !== null && request.perCallCapMicros !== null && request.perCallCapMicros > parentPerCall) {
    throw tooWide(`perCallCap ${fromMicros(request.perCallCapMicros)} is more than its parent's ${fromMicros(parentPerCall)}`)
  }
  const inherits = request.bees === null && request.categories === null
  const scope = scopeOf(parent, categoryOf)
  for (const beeId of request.bees ?? []) {
    if (!await scope.bee(beeId)) throw tooWide(`its parent may not pay for ${beeId}`)
  }
  const outsideCategory = (request.categories ?? []).find((category) => !scope.category(category))
  if (outsideCategory !== undefined) throw tooWide(`its parent may not pay for the category ${outsideCategory}`)
  return {
    ...request,
    perCallCapMicros: request.perCallCapMicros ?? parentPerCall,
    bees: inherits ? parent.bees : request.bees,
    categories: inherits ? parent.categories : request.categories
  }
}

/**
 * A token's row for its holder: from the wallet (a root token) or from the presenting token (a child),
 * unsigned: the OAuth server signs the ones it issues itself.
 */
export async function mintTokenRow (ledger: Ledger, holder: TokenHolder, request: MintRequest,
  categoryOf: CategoryOf, nowMs: number): Promise<WalletToken> {
  const parent = holder.token
  const parentLeftMs = parent === null ? Infinity : Date.parse(parent.expiresAt) - nowMs
  const lifetimeMs = request.expiresInSeconds === null
    ? Math.min(DEFAULT_TOKEN_LIFETIME_SECONDS * 1000, parentLeftMs)
    : request.expiresInSeconds * 1000
  const expiresAtMs = nowMs + lifetimeMs
  const terms = parent === null ? request : await narrowed(parent, request, expiresAtMs, categoryOf)
  return await ledger.tokens.create({
    id: `tok_${randomBytes(12).toString('hex')}`,
    walletId: holder.walletId,
    parentId: parent?.id ?? null,
    capMicros: terms.capMicros,
    perCallCapMicros: terms.perCallCapMicros,
    bees: terms.bees,
    categories: terms.categories,
    label: terms.label,
    // Whole seconds, as the JWT's exp.
    expiresAt: new Date(Math.floor(expiresAtMs / 1000) * 1000).toISOString()
  }, parent?.path ?? null)
}

/** Mints a token for its holder (see mintTokenRow). Returns the row and the signed token. */
export async function mintToken (ledger: Ledger, signer: TokenSigner, holder: TokenHolder, request: MintRequest,
  categoryOf: CategoryOf, nowMs: number): Promise<{ token: WalletToken, jws: string }> {
  const token = await mintTokenRow(ledger, holder, request, categoryOf, nowMs)
  return { token, jws: await signer.sign(token, holder.currency) }
}
