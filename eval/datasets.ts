// The four human-rated VADER ground-truth sets, their published VADER scores
// (Hutto & Gilbert 2014, Table 4) and the fixed tuning/reporting split.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface RatedText { id: string; rating: number; text: string }

export interface PublishedScores { precision: number; recall: number; f1: number; r: number }

export interface SentimentSet { name: string; file: string; vader: PublishedScores }

export const DEFAULT_DATA_DIR = process.env.VADER_GROUND_TRUTH_DIR ?? '/work/shared/data/vader-ground-truth'

export const SENTIMENT_SETS: readonly SentimentSet[] = [
  { name: 'tweets', file: 'tweets_GroundTruth.txt', vader: { precision: 0.99, recall: 0.94, f1: 0.96, r: 0.881 } },
  { name: 'movie', file: 'movieReviewSnippets_GroundTruth.txt', vader: { precision: 0.70, recall: 0.55, f1: 0.61, r: 0.451 } },
  { name: 'amazon', file: 'amazonReviewSnippets_GroundTruth.txt', vader: { precision: 0.78, recall: 0.55, f1: 0.63, r: 0.565 } },
  { name: 'nyt', file: 'nytEditorialSnippets_GroundTruth.txt', vader: { precision: 0.69, recall: 0.49, f1: 0.55, r: 0.492 } }
]

export function parseGroundTruth (content: string): RatedText[] {
  const items: RatedText[] = []
  for (const line of content.split(/\r?\n/)) {
    if (line.trim() === '') continue
    const [id, rating, ...rest] = line.split('\t')
    // A text never contains a tab in these files, but rejoining keeps one intact if it did.
    const text = rest.join('\t')
    const value = Number(rating)
    if (id === undefined || rating === undefined || Number.isNaN(value)) {
      throw new Error(`malformed ground-truth line: ${JSON.stringify(line.slice(0, 80))}`)
    }
    items.push({ id, rating: value, text })
  }
  return items
}

export function loadSet (set: SentimentSet, dataDir = DEFAULT_DATA_DIR): RatedText[] {
  return parseGroundTruth(readFileSync(join(dataDir, set.file), 'utf8'))
}

// FNV-1a 32-bit: stable across platforms and Node versions, unlike anything seeded.
export function fnv1a32 (input: string): number {
  let hash = 0x811c9dc5
  for (const byte of Buffer.from(input, 'utf8')) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

// Even hashes tune, odd hashes report; the rule never looks at the text or rating.
export function isTuningItem (setName: string, id: string): boolean {
  return fnv1a32(`${setName}:${id}`) % 2 === 0
}

export function splitHalf (setName: string, items: readonly RatedText[], half: 'tuning' | 'reporting'): RatedText[] {
  const wantTuning = half === 'tuning'
  return items.filter(item => isTuningItem(setName, item.id) === wantTuning)
}
