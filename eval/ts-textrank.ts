// ts-textrank (the most used TextRank package on npm) as a comparison system,
// given the same word budget as Apiary: its sentences ranked by its own
// PageRank scores, taken greedily while they fit, then put back in text order.
// It returns sentences without their final punctuation ("." is its delimiter),
// which ROUGE's tokenization ignores, so the scores compare fairly.
import { AbsoluteSummarizerConfig, DefaultTextParser, NullLogger, SorensenDiceSimilarity, Summarizer } from 'ts-textrank'
import { countWords, firstWords } from '../bees/text-summarizer/words.js'

const DAMPING = 0.85

export function tsTextRank (text: string, maxWords: number): { summary: string } {
  // A count above any text's sentence count: every sentence, best first.
  const config = new AbsoluteSummarizerConfig(Number.MAX_SAFE_INTEGER, new SorensenDiceSimilarity(), new DefaultTextParser(),
    DAMPING, Summarizer.SORT_SCORE)
  const ranked = new Summarizer(config, new NullLogger()).summarize(text, 'en')
  const chosen: string[] = []
  let budget = maxWords
  for (const sentence of ranked) {
    const words = countWords(sentence)
    if (words > budget) continue
    chosen.push(sentence)
    budget -= words
  }
  if (chosen.length === 0) return { summary: firstWords(ranked[0] ?? text.trim(), maxWords) }
  const position = new Map(chosen.map(sentence => [sentence, text.indexOf(sentence)]))
  return { summary: chosen.sort((a, b) => position.get(a)! - position.get(b)!).join(' ') }
}
