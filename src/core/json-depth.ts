/** Deeper JSON is refused: no input or answer here needs it, and deep values overflow the stack of whatever recurses over them. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether a parsed JSON value nests objects or arrays more than `max` levels deep. Iterative, so no value can
 * exhaust the stack here. Node 20's JSON.parse overflowed on such text by itself; Node 22 and later parse it, so the
 * limit has to be said.
 */
export function nestedDeeperThan (value: unknown, max: number): boolean {
  const pending: Array<{ value: unknown, depth: number }> = [{ value, depth: 1 }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue
    if (next.depth > max) return true
    for (const child of Object.values(next.value)) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth: next.depth + 1 })
    }
  }
  return false
}
