// The word evidence the learned model weighs: unigrams, with those inside a
// negation's scope marked ("not good" gives "~good"), and bigrams. Negation
// marking (Das & Chen 2001; Pang, Lee & Vaithyanathan 2002) lets one weight
// mean "good" and another "not good" without any lexicon.

const TOKEN = /[\p{L}\p{N}]+(?:['’]\p{L}+)*|[.,;:!?]/gu
const CLAUSE_END = /^[.,;:!?]$/
// "but" starts a clause whose polarity often reverses the first one's; a
// negation before it should not reach past it.
const SCOPE_END = new Set(['but', 'however', 'although', 'though', 'yet'])
const NEGATORS = new Set(['not', 'no', 'never', 'cannot', 'nothing', 'nobody', 'none', 'nor', 'neither', 'without', 'hardly', 'barely'])
const NEGATED_CONTRACTION = /n['’]t$/

/** Feature names of one (already normalized) text; repeats are kept, order is not meaningful. */
export function wordFeatures (text: string): string[] {
  const features: string[] = []
  let negated = false
  let previous = ''
  for (const [raw] of text.toLowerCase().matchAll(TOKEN)) {
    if (CLAUSE_END.test(raw)) {
      if (raw === '!' || raw === '?') features.push(raw)
      negated = false
      previous = ''
      continue
    }
    const word = raw.replace('’', "'")
    features.push(negated ? `~${word}` : word)
    if (previous !== '') features.push(`${previous} ${word}`)
    previous = word
    if (SCOPE_END.has(word)) negated = false
    else if (NEGATORS.has(word) || NEGATED_CONTRACTION.test(word)) negated = true
  }
  return features
}
