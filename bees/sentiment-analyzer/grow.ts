type Buffer = Int32Array | Uint8Array | Float64Array

/** `array`, or a copy twice as long (or as long as `needed`) when it holds fewer than `needed`: reused buffers grow, never shrink. */
export function grown<T extends Buffer> (array: T, needed: number): T {
  if (array.length >= needed) return array
  const larger = new (array.constructor as new (length: number) => T)(Math.max(needed, array.length * 2))
  larger.set(array)
  return larger
}
