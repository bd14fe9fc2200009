interface MediaRange { type: string, subtype: string, q: number }

function parse (accept: string): MediaRange[] {
  const ranges: MediaRange[] = []
  for (const part of accept.split(',').slice(0, 64)) {
    const [media = '', ...parameters] = part.split(';')
    const [type = '', subtype = ''] = media.trim().toLowerCase().split('/')
    if (type === '' || subtype === '') continue
    const qParameter = parameters.map((parameter) => parameter.trim().toLowerCase()).find((parameter) => parameter.startsWith('q='))
    const q = qParameter === undefined ? 1 : Number(qParameter.slice(2))
    ranges.push({ type, subtype, q: Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : 0 })
  }
  return ranges
}

interface Match { specificity: number, q: number }

/** The quality the client gives a media type: that of the most specific range that matches it (RFC 9110 §12.5.1). */
function matchOf (ranges: readonly MediaRange[], mediaType: string): Match {
  const [type, subtype] = mediaType.split('/')
  let best: Match = { specificity: -1, q: 0 }
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' && range.subtype === '*' ? 0 : -1
    if (specificity > best.specificity) best = { specificity, q: range.q }
  }
  return best
}

/**
 * Which of two media types the client's Accept prefers: `alternative` only when the client ranks it above
 * `usual`, by quality, then by naming it more specifically (`text/markdown` beside a wildcard asks for Markdown);
 * otherwise (no Accept, a tie, neither acceptable) `usual`, which is never refused with 406.
 */
export function preferred (accept: string | undefined, usual: string, alternative: string): string {
  if (accept === undefined) return usual
  const ranges = parse(accept)
  const wanted = matchOf(ranges, alternative)
  const other = matchOf(ranges, usual)
  const better = wanted.q > other.q || (wanted.q === other.q && wanted.specificity > other.specificity)
  return wanted.q > 0 && better ? alternative : usual
}
