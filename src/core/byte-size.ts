const UNITS = [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const

/**
 * A size as a person reads it: in the largest binary unit it is a round figure of (to two decimals: 2 MiB, 1.5 MiB,
 * 512 KiB), else in bytes. Limits are configured in bytes, and a message that says 2097152 makes its reader count.
 */
export function byteSize (bytes: number): string {
  for (const [unit, size] of UNITS) {
    const figure = bytes / size
    if (figure >= 1 && Number.isInteger(figure * 100)) return `${figure} ${unit}`
  }
  return bytes === 1 ? '1 byte' : `${bytes.toLocaleString('en-US')} bytes`
}
