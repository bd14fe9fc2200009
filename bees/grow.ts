type Buffer = Int32Array | Uint8Array | Uint16Array | Float64Array

/** `array`, or a copy twice as long (or as long as `needed`) when it holds fewer than `needed`: reused buffers grow, never shrink. */
export function grown<T extends Buffer> (array: T, needed: number): T {
  if (array.length >= needed) return array
  const larger = new (array.constructor as new (length: number) => T)(Math.max(needed, array.length * 2))
  larger.set(array)
  return larger
}

/** Past this many elements a reused buffer is let go after the call: a megabyte of text would keep megabytes for good. */
const KEPT = 1 << 14

/** `array` if it may be kept for the next call, otherwise a new one of `small` elements. */
export function trimmed<T extends Buffer> (array: T, small: number): T {
  return array.length <= KEPT ? array : new (array.constructor as new (length: number) => T)(small)
}
