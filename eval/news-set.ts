/*
 * Builds the news evaluation set (see eval/data/news/README.md) from a local copy of the "BBC News Summary" data set,
 * in the folder shape eval/summaries.ts scores: OUT/article/NAME.txt + OUT/summary/NAME.txt.
 *
 *   npx tsx eval/news-set.ts "PATH/BBC News Summary" [OUT]      (OUT defaults to eval/data/news)
 *
 * The data set's reference extracts are the chosen article sentences glued together without a space and in no
 * particular order. Order does not move ROUGE-1 or ROUGE-2, but it decides ROUGE-L, so each reference is cut back into
 * the article's sentences and written in the article's order, one space apart. A reference that cannot be cut into
 * the article's sentences exactly (about 6%: its sentences were split where this cut does not split) is left out, as
 * are repeated articles. PAIRS_PER_CATEGORY pairs per category are kept, chosen by a hash of their name.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { fnv1a32 } from './datasets.js'

export const DEFAULT_NEWS_DIR = new URL('data/news/', import.meta.url).pathname
export const PAIRS_PER_CATEGORY = 100

// The data set's own sentence cut: after . ! or ? (and a closing quote), at white space; and at line breaks.
const SENTENCE_CUT = /(?<=[.!?]['"]?)\s+|\n+/

/** The reference's sentences in the article's order, one space apart; undefined if it is not made of them. */
export function referenceInArticleOrder (article: string, reference: string): string | undefined {
  const sentences = [...new Set(article.split(SENTENCE_CUT).map(s => s.trim()).filter(s => s !== ''))]
  const text = reference.trim()
  const found: Array<{ at: number, sentence: string }> = []
  let position = 0
  while (position < text.length) {
    // The longest sentence that continues the reference here: a short one may be the start of a longer one.
    let best = ''
    for (const sentence of sentences) if (sentence.length > best.length && text.startsWith(sentence, position)) best = sentence
    if (best === '') return undefined
    found.push({ at: article.indexOf(best), sentence: best })
    position += best.length
  }
  if (found.length === 0) return undefined
  return found.sort((a, b) => a.at - b.at).map(({ sentence }) => sentence).join(' ')
}

/** Pair names in the order pairs are kept: by hash, so no category's first files are favoured. */
function byHash (names: readonly string[]): string[] {
  return [...names].sort((a, b) => fnv1a32(`pick:${a}`) - fnv1a32(`pick:${b}`) || (a < b ? -1 : 1))
}

export interface NewsPair { name: string, article: string, reference: string }

/** The kept pairs of the data set at `source` ("News Articles/CATEGORY/N.txt" + "Summaries/CATEGORY/N.txt"). */
export function buildNewsSet (source: string, perCategory = PAIRS_PER_CATEGORY): { pairs: NewsPair[], skipped: number, repeated: number } {
  const pairs: NewsPair[] = []
  const seen = new Set<string>()
  let skipped = 0
  let repeated = 0
  for (const category of readdirSync(join(source, 'News Articles')).sort()) {
    const usable: NewsPair[] = []
    for (const file of readdirSync(join(source, 'News Articles', category)).filter(f => f.endsWith('.txt'))) {
      // One file of the 2,225 is Latin-1, not UTF-8; it is left out with the unusable ones.
      const article = readFileSync(join(source, 'News Articles', category, file), 'utf8')
      const reference = referenceInArticleOrder(article, readFileSync(join(source, 'Summaries', category, file), 'utf8'))
      if (reference === undefined || article.includes('\uFFFD')) { skipped += 1; continue }
      const key = article.trim()
      if (seen.has(key)) { repeated += 1; continue }
      seen.add(key)
      usable.push({ name: `${category}-${file}`, article: key + '\n', reference: reference + '\n' })
    }
    const kept = new Set(byHash(usable.map(p => p.name)).slice(0, perCategory))
    pairs.push(...usable.filter(p => kept.has(p.name)))
  }
  return { pairs, skipped, repeated }
}

function main (): void {
  const [source, out = DEFAULT_NEWS_DIR] = process.argv.slice(2)
  if (source === undefined) {
    console.error('Usage: npx tsx eval/news-set.ts "PATH/BBC News Summary" [OUT]')
    process.exit(2)
  }
  const { pairs, skipped, repeated } = buildNewsSet(source)
  for (const folder of ['article', 'summary']) mkdirSync(join(out, folder), { recursive: true })
  for (const { name, article, reference } of pairs) {
    writeFileSync(join(out, 'article', name), article)
    writeFileSync(join(out, 'summary', name), reference)
  }
  console.log(`wrote ${pairs.length} pairs to ${out} (${skipped} unusable references and ${repeated} repeated articles left out)`)
}

export type NewsPart = 'tuning' | 'held-out'

/**
 * The fixed split: the highest bit of an FNV-1a hash of the pair's name. (Its lowest bit is only the parity of the
 * name's bytes, which would split "001" from "002" like a coin that alternates.)
 */
export function newsPart (name: string): NewsPart {
  return fnv1a32(`news:${name}`) >>> 31 === 0 ? 'tuning' : 'held-out'
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main()
