import { invalidCursor } from '../errors.js'

/** Cursors are opaque to clients: the last key of a page, base64url-encoded. */
export function encodeCursor (key: string | number): string {
  return Buffer.from(String(key)).toString('base64url')
}

/**
 * The key a cursor holds, or 400 INVALID_CURSOR. Strict, because Buffer's base64url decoder is not:
 * it skips characters outside the alphabet and turns bad UTF-8 into U+FFFD, so "garbage!!" would
 * decode to some key. A cursor is accepted only if it is exactly what encodeCursor gives for the key
 * it decodes to, and that key has the shape of the keys this listing pages by.
 */
export function decodeCursor (cursor: string | undefined, keyShape: RegExp): string | undefined {
  if (cursor === undefined) return undefined
  const key = Buffer.from(cursor, 'base64url').toString()
  if (key === '' || encodeCursor(key) !== cursor || !keyShape.test(key)) throw invalidCursor()
  return key
}

/** Journal cursors hold an entry id: a positive integer JavaScript holds exactly. */
export function decodeIdCursor (cursor: string | undefined): number | undefined {
  const key = decodeCursor(cursor, /^[1-9][0-9]{0,15}$/)
  if (key === undefined) return undefined
  const id = Number(key)
  if (!Number.isSafeInteger(id)) throw invalidCursor()
  return id
}
