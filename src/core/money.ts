/** Money is held as integer micro-units (1e-6 of the currency) and shown in JSON as a decimal number. */
export const MICROS_PER_UNIT = 1_000_000

/** Converts a decimal amount to micro-units, or returns null when it has more than six decimal places. */
export function toMicros (amount: number): number | null {
  const micros = Math.round(amount * MICROS_PER_UNIT)
  if (!Number.isSafeInteger(micros) || Math.abs(micros - amount * MICROS_PER_UNIT) > 1e-6 * Math.max(1, Math.abs(amount))) {
    return null
  }
  return micros
}

export function fromMicros (micros: number): number {
  return micros / MICROS_PER_UNIT
}
