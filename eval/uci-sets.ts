// The three "Sentiment Labelled Sentences" sets (Kotzias, Denil, de Freitas & Smyth, "From Group to Individual
// Labels using Deep Features", KDD 2015; UCI Machine Learning Repository, CC BY 4.0): about 1,000 sentences each
// from Yelp restaurant reviews, Amazon reviews of mobile phones and accessories, and IMDb movie reviews, each
// labelled positive or negative by the authors. The copy read here is the one the `sentiment` npm package (MIT)
// ships as its validation fixtures, so `npm ci` brings it and nothing is downloaded at run time. The sentiment
// model was never fitted on them: they are sources it has not seen.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { RatedText } from './datasets.js'

export interface UciSet { name: string; file: string; kind: string }

export const UCI_SETS: readonly UciSet[] = [
  { name: 'uci-yelp', file: 'yelp.json', kind: 'restaurant reviews' },
  { name: 'uci-amazon', file: 'amazon.json', kind: 'mobile phone reviews' },
  { name: 'uci-imdb', file: 'imdb.json', kind: 'movie reviews' }
]

const require = createRequire(import.meta.url)
const FIXTURES = join(dirname(require.resolve('sentiment/package.json')), 'test', 'fixtures')

/** One labelled sentence as the package ships it: class 1 is positive, 0 negative; each file ends with an empty row. */
interface Fixture { text: string; class: number | null }

/**
 * The set as rated texts: the label becomes a rating of +1 or -1, so the VADER sets' gold rule (the rating's sign)
 * and every metric apply unchanged; the id is the sentence's position in the file.
 */
export function parseUciSet (content: string): RatedText[] {
  const rows = JSON.parse(content) as Fixture[]
  return rows.flatMap((row, i) => {
    if (row.text === '' && row.class === null) return []
    if (typeof row.text !== 'string' || (row.class !== 0 && row.class !== 1)) {
      throw new Error(`malformed labelled sentence ${i}: ${JSON.stringify(row).slice(0, 80)}`)
    }
    return [{ id: String(i), rating: row.class === 1 ? 1 : -1, text: row.text.trim() }]
  })
}

export function loadUciSet (set: UciSet, dir = FIXTURES): RatedText[] {
  return parseUciSet(readFileSync(join(dir, set.file), 'utf8'))
}
