import { Type } from 'typebox'
import { toMicros } from '../src/core/money.js'

/** The variable that prices a pay-per-use built-in Bee's call, in PRICE_CURRENCY. */
export const Price = (bee: string, fallback: number) => Type.Number({
  exclusiveMinimum: 0,
  default: fallback,
  description: `Price of one ${bee} call, in PRICE_CURRENCY (decimal, at most 6 places).`
})

/** Why a price variable's value is no amount the ledger holds (micro-units), or none. */
export const priceProblems = (name: string, price: number): string[] =>
  toMicros(price) === null ? [`${name} must be a finite decimal with at most 6 decimal places`] : []
