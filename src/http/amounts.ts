import { failure } from '../core/errors.js'
import { toMicros } from '../core/money.js'

/** A decimal amount from a request body in micro-units, or 400 INVALID_AMOUNT when it has more than 6 decimal places. */
export function amountMicros (amount: number): number {
  const value = toMicros(amount)
  if (value === null) throw failure('INVALID_AMOUNT', 'Amounts have at most 6 decimal places.')
  return value
}
