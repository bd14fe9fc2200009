/**
 * Words are what the budget counts: runs of non-white-space characters, as `text.split(/\s+/)` would see them. Walked
 * with `test`, which moves lastIndex past each word without building a match object (half the time of matchAll).
 */
const WORD = /\S+/g

export function countWords (text: string): number {
  WORD.lastIndex = 0
  let count = 0
  while (WORD.test(text)) count++
  return count
}

/** The verbatim start of `text` up to the end of its `limit`-th word (the whole text if it has fewer). */
export function firstWords (text: string, limit: number): string {
  if (limit < 1) return ''
  WORD.lastIndex = 0
  let count = 0
  while (WORD.test(text)) {
    if (++count === limit) return text.slice(0, WORD.lastIndex)
  }
  return text
}
