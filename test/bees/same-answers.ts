// What the identity tests feed the Bees and their frozen copies (test/fixtures/bees-before): every text of every eval
// set, and generated text that reaches the rules the eval texts rarely do. The fast suite takes a sample
// (test/bees/*/same-answers.test.ts); test/eval/bees-same-answers.test.ts takes all of it.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { loadSet, SENTIMENT_SETS } from '../../eval/datasets.js'
import { DEFAULT_NEWS_DIR } from '../../eval/news-set.js'
import { loadUnseenSets } from '../../eval/unseen-sets.js'
import type { SentimentAnalysis } from '../../bees/sentiment-analyzer/analyze.js'
import type { Summary } from '../../bees/text-summarizer/summarize.js'

const SUMMARIES_DIR = new URL('../../eval/data/summaries/', import.meta.url).pathname
const SEARCH_CATALOG = new URL('../../eval/search/catalog.json', import.meta.url)

export interface Document { name: string, text: string }

function folder (dir: string, part: 'article' | 'summary'): Document[] {
  const at = join(dir, part)
  if (!existsSync(at)) return []
  return readdirSync(at).filter(name => name.endsWith('.txt')).sort().map(name => ({ name: `${part}/${name}`, text: readFileSync(join(at, name), 'utf8') }))
}

/** The four VADER sets, the three UCI sets and the Reddit comments, in that order. */
export function ratedTexts (): string[] {
  return [...SENTIMENT_SETS.flatMap(set => loadSet(set).map(item => item.text)), ...loadUnseenSets().flatMap(set => set.items.map(item => item.text))]
}

/** The bundled articles and their reference summaries, and the news set's (eval/data/news, when it has been built). */
export function documents (): Document[] {
  return [SUMMARIES_DIR, DEFAULT_NEWS_DIR].flatMap(dir => [...folder(dir, 'article'), ...folder(dir, 'summary')])
}

/** The search set's Bee descriptions: text as publishers write it. */
export function descriptions (): string[] {
  const { bees } = JSON.parse(readFileSync(SEARCH_CATALOG, 'utf8')) as { bees: Array<{ description: string }> }
  return bees.map(bee => bee.description)
}

/** Every text of every eval set. */
export function evalTexts (): string[] {
  return [...ratedTexts(), ...documents().map(document => document.text), ...descriptions()]
}

/** Every `every`-th item, starting at the first: a sample that reaches each set. */
export const sample = <T>(items: readonly T[], every: number): T[] => items.filter((_, i) => i % every === 0)

/**
 * Multi-sentence documents made of the rated texts, `size` at a time, each group joined one way in turn (spaces, line
 * breaks, blank lines): reviews and tweets as a page would hold them, for the summarizer.
 */
export function groupedTexts (texts: readonly string[], size: number): string[] {
  const joins = [' ', '\n', '\n\n']
  const grouped: string[] = []
  for (let i = 0; i < texts.length; i += size) grouped.push(texts.slice(i, i + size).join(joins[grouped.length % joins.length]))
  return grouped
}

// Pieces that reach the rules: VADER's boosters, negations, "but", "least", idioms, capitals and marks; wink-nlp's
// contractions, attached punctuation, abbreviations, hyphens, URLs, mentions, emoticons, emoji, numbers and spaces; the
// word features' curly apostrophes; the language check's function words; HTML entities and runs without white space.
export const PIECES = [
  'good', 'GOOD', 'Good', 'bad', 'BAD', 'great', 'terrible', 'love', 'hate', 'nice', 'not', 'NOT', 'no', 'never', 'nor',
  'without', "isn't", 'isn’t', "don't", 'dont', "can't", "won't", "I'm", "it's", "friend's", "friend's.", 'cannot',
  'kind', 'of', 'kind of', 'sort of', 'kinda', 'very', 'VERY', 'extremely', 'barely', 'hardly', 'so', 'this', 'least',
  'at least', 'very least', 'but', 'BUT', 'however', 'yet', 'the shit', 'the bomb', 'bad ass', 'yeah right',
  'cut the mustard', 'kiss of death', 'hand to mouth', 'just enough', 'the', 'a', 'is', 'was', 'and', 'I', 'you', 'it',
  'movie', 'food', 'service', 'fine', 'ok', 'meh', 'lol', 'LOL', 'sooo', 'yesss', 'haha', 'wow', 'smh', 'predictable',
  '!', '!!', '!!!', '?', '??', '?!?', '.', '..', '...', '…', ',', ';', ':', '-', '--', '–', '—', "'", '"', '“', '”',
  '(', ')', '[', ']', 'good.', 'good!', 'bad,', '"good"', '(bad)', 'Mr.', 'Dr.', 'U.S.', 'e.g.', 'etc.', 'p.s.', 'a.m.',
  'well-made', 'anti-hero', 'co-worker', 'x-ray', 'self-absorbed', 'http://example.com/a?b=1', 'www.example.org',
  'me@example.com', '@anna', '#blessed', '#1', ':)', ':-(', ';)', ':D', ':P', '<3', '&lt;3', '</3', ':/', '\\o/', 'xD',
  '😀', '😢', '👍', '❤️', '☹', '3', '3.14', '1,000', '$5', '£10', '€', '10:30', '5pm', '2nd', '1990s', "'90s",
  'ÉTÉ', 'café', 'naïve', 'Müller', 'est', 'très', 'bien', 'der', 'und', 'ist', 'nicht', 'gut', 'muy', 'bueno', 'pero',
  'Это', 'хорошо', '东京', '很好', '&amp;', '&quot;', '&#33;', '&#128512;', '&#9999999;', 'a'.repeat(70), '#'.repeat(66),
  'a-'.repeat(40), ' ', '  ', '\t', '\n', '\n\n', '\r\n', '\u00a0', '\u2003', '\u3000', '\u200b'
]

const pieces = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 })
const separators = fc.array(fc.constantFrom(' ', ' ', ' ', '', '\n', '  '), { minLength: 40, maxLength: 40 })

/** Text made of PIECES, joined mostly by single spaces; sometimes glued or on new lines. */
export const pieceText = fc.tuple(pieces, separators).map(([words, gaps]) => words.map((word, i) => word + (gaps[i] ?? ' ')).join(''))

/** Any text: the pieces, or arbitrary code units and graphemes. */
export const anyText = fc.oneof(
  { arbitrary: pieceText, weight: 4 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 1 }
)

/** The same label, and the same score and confidence to the last bit (Object.is tells 0 from -0). */
export const sameAnalysis = (a: SentimentAnalysis, b: SentimentAnalysis): boolean =>
  a.sentiment === b.sentiment && Object.is(a.score, b.score) && Object.is(a.confidence, b.confidence)

/** Word budgets that reach each branch of the summarizer: the default, a few sentences, less than one. */
export const BUDGETS = [150, 40, 3] as const

/** The same summary and key points, and the same confidence to the last bit. */
export const sameSummary = (a: Summary, b: Summary): boolean =>
  a.summary === b.summary && Object.is(a.confidence, b.confidence) && a.keyPoints.length === b.keyPoints.length &&
  a.keyPoints.every((point, i) => point === b.keyPoints[i])
