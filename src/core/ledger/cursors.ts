/** Cursors are opaque to clients: the last key of a page, base64url-encoded. */
export function encodeCursor (key: string | number): string {
  return Buffer.from(String(key)).toString('base64url')
}

/**
 * The key a cursor holds, or null when it is not a cursor of this listing. Strict, because Buffer's
 * base64url decoder is not: it skips characters outside the alphabet and turns bad UTF-8 into U+FFFD,
 * so "garbage!!" would decode to some key. A cursor is accepted only if it is exactly what
 * encodeCursor gives for the key it decodes to, and that key has the shape of the keys this listing
 * pages by.
 */
export function decodeCursor (cursor: string, keyShape: RegExp): string | null {
  const key = Buffer.from(cursor, 'base64url').toString()
  if (key === '' || encodeCursor(key) !== cursor || !keyShape.test(key)) return null
  return key
}

/** Journal cursors hold an entry id: a positive integer JavaScript holds exactly. */
export function decodeIdCursor (cursor: string): number | null {
  const key = decodeCursor(cursor, /^[1-9][0-9]{0,15}$/)
  if (key === null) return null
  const id = Number(key)
  return Number.isSafeInteger(id) ? id : null
}
