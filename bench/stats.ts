/** The median, which one noisy round or spawn cannot drag the way it drags a mean. */
export function median (values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of nothing')
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const upper = sorted[middle] as number
  return sorted.length % 2 === 1 ? upper : (upper + (sorted[middle - 1] as number)) / 2
}

/** The value below which `q` (0..1) of the values fall (nearest rank). */
export function quantile (values: readonly number[], q: number): number {
  if (values.length === 0) throw new RangeError('quantile of nothing')
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number
}
