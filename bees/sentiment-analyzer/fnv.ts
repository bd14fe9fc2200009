// FNV-1a over UTF-16 code units, as an int32: what the sentiment analysis's own open-addressing tables hash words by
// (the word table, wink's lexemes, a text's words, the function words).

export const FNV_OFFSET = 0x811c9dc5 | 0
export const FNV_PRIME = 0x01000193

/** The hash of text.slice(start, end), without the slice. */
export function fnv1a (text: string, start = 0, end = text.length): number {
  let hash = FNV_OFFSET
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME)
  return hash
}
