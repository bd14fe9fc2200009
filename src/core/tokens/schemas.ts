import { Type, type Static } from 'typebox'
import { TOKEN_ID_PATTERN } from '../ledger/tokens/token-id.js'
import { BEE_ID_PATTERN, MAX_AMOUNT, NullableString, ref, shared } from '../schemas.js'
import { MAX_TOKEN_LIFETIME_SECONDS } from './keyring.js'

const NullableList = (description: string) => Type.Unsafe<string[] | null>({ type: 'array', nullable: true, items: { type: 'string' }, description })

const Amount = (description: string) => Type.Number({ minimum: 0.000001, maximum: MAX_AMOUNT, description })

export const TokenId = Type.String({ pattern: TOKEN_ID_PATTERN, description: 'Token id (the JWT\'s jti).' })

export const MintTokenBody = Type.Object({
  cap: Amount('Most it and its descendants may spend, in the wallet\'s currency.'),
  perCallCap: Type.Optional(Amount('Most one call may cost (default: none; a child: its parent\'s).')),
  expiresInSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKEN_LIFETIME_SECONDS, description: 'Lifetime (default a day).' })),
  bees: Type.Optional(Type.Array(Type.String({ pattern: BEE_ID_PATTERN, maxLength: 64 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Bee ids it may pay for.' })),
  categories: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 50, uniqueItems: true, description: 'Categories it may pay for.' })),
  label: Type.Optional(Type.String({ maxLength: 200, description: 'Free-text label.' }))
}, {
  description: 'Its terms; a child\'s must be within its parent\'s. Without bees and categories: any Bee (a child: its parent\'s).',
  examples: [{ cap: 1, perCallCap: 0.01, expiresInSeconds: 3600, bees: ['sentiment-analyzer'] }]
})

export const WalletTokenView = shared('WalletToken', Type.Object({
  id: TokenId,
  parentId: NullableString({ description: 'The token it was minted from; null: the wallet key.' }),
  cap: Type.Number({ description: 'Most it and its descendants may spend.' }),
  spent: Type.Number({ description: 'Held or captured by calls it or its descendants paid (a void gives back).' }),
  remaining: Type.Number({ description: 'cap - spent (its ancestors and the wallet bound it too).' }),
  perCallCap: Type.Unsafe<number | null>({ type: 'number', nullable: true, description: 'Most one call may cost.' }),
  currency: Type.String({ description: 'The wallet\'s currency.' }),
  bees: NullableList('Bee ids it may pay for; with categories null: any.'),
  categories: NullableList('Categories it may pay for.'),
  label: NullableString({ description: 'Its label.' }),
  expiresAt: Type.String({ format: 'date-time', description: 'Its expiry (exp).' }),
  revokedAt: NullableString({ description: 'When it or an ancestor was revoked.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When it was minted.' })
}, { description: 'A verification token, as the ledger enforces it.' }))
export type WalletTokenView = Static<typeof WalletTokenView>

export const MintedToken = Type.Intersect([
  ref(WalletTokenView),
  Type.Object({ token: Type.String({ description: 'The token (a JWT), shown only here: a bearer secret.' }) })
], { description: 'The new token.' })

export const RevokedTokens = Type.Object({
  id: TokenId,
  revoked: Type.Integer({ description: 'How many were revoked: it and its live descendants.' })
}, { description: 'Revoked with its descendants.' })
