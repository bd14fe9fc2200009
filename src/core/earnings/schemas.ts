import { Type, type Static } from 'typebox'
import { NullableString, ref, shared, StringEnum } from '../schemas.js'

/** Publisher ids are `pub_` and base64url characters (see the publishers route); `operator` is the operator's account. */
export const EARNINGS_ACCOUNT_PATTERN = '^(?:operator|pub_[A-Za-z0-9_-]{1,64})$'

export const EarningsAccountId = Type.String({ pattern: EARNINGS_ACCOUNT_PATTERN, description: 'A publisher id, or operator.' })

export const EarningsEntry = shared('EarningsEntry', Type.Object({
  id: Type.Integer({ description: 'Entry number, increasing over the whole ledger.' }),
  kind: StringEnum(['sale', 'fee', 'x402', 'payout', 'opening'], {
    description: 'sale (net of the fee), fee (the operator\'s), x402 (a sale paid with x402), payout, or opening: see docs/payments/earnings.md.'
  }),
  amount: Type.Number({ description: 'Credited, or for a payout paid out; never negative.' }),
  fee: Type.Number({ description: 'On a sale: the fee withheld (price = amount + fee); else 0.' }),
  currency: Type.String({ description: 'ISO 4217 currency.' }),
  beeId: NullableString({ description: 'The Bee sold.' }),
  holdId: Type.Unsafe<number | null>({ type: 'integer', nullable: true, description: 'On a sale or fee: the captured wallet hold.' }),
  requestId: NullableString({ description: 'The request that caused it.' }),
  reference: NullableString({ description: 'A payout\'s reference; an x402 sale\'s payment key.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When the entry was written.' })
}, { description: 'One movement of an earnings account.' }))
export type EarningsEntry = Static<typeof EarningsEntry>

export const EarningsBalance = shared('EarningsBalance', Type.Object({
  currency: Type.String({ description: 'ISO 4217 currency.' }),
  balance: Type.Number({ description: 'What can be paid out: earned − paidOut.' }),
  earned: Type.Number({ description: 'All credits: sales net of fees (and the operator\'s fees).' }),
  fees: Type.Number({ description: 'Fees withheld from the account\'s sales (not in earned).' }),
  paidOut: Type.Number({ description: 'Paid out so far.' })
}, { description: 'An earnings account\'s figures in one currency.' }))
export type EarningsBalance = Static<typeof EarningsBalance>

export const EarningsStatement = Type.Object({
  account: Type.String({ description: 'A publisher id, or operator.' }),
  balances: Type.Array(ref(EarningsBalance), { description: 'One per currency earned in.' }),
  entries: Type.Array(ref(EarningsEntry), { description: 'A page of entries, newest first.' }),
  nextCursor: NullableString({ description: 'The next page\'s cursor; null on the last.' })
}, { description: 'An earnings account and a page of its statement.' })

export const Payout = Type.Object({
  payout: ref(EarningsEntry),
  balance: ref(EarningsBalance)
}, { description: 'The payout and the account after it.' })
