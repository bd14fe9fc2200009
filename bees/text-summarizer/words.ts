/** Words are what the budget counts: runs of non-white-space characters, as `text.split(/\s+/)` would see them. */
const WORD = /\S+/g

export function countWords (text: string): number {
  let count = 0
  for (const _ of text.matchAll(WORD)) count++
  return count
}

/** The verbatim start of `text` up to the end of its `limit`-th word (the whole text if it has fewer). */
export function firstWords (text: string, limit: number): string {
  if (limit < 1) return ''
  let count = 0
  for (const word of text.matchAll(WORD)) {
    if (++count === limit) return text.slice(0, word.index + word[0].length)
  }
  return text
}
