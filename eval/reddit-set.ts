// A social-media source other than tweets, for the leave-one-source-out calibration check: Reddit comments from
// GoEmotions (Demszky et al., "GoEmotions: A Dataset of Fine-Grained Emotions", ACL 2020; Apache-2.0), whose raters
// tagged each comment with emotions. The authors group the emotions into positive, negative and ambiguous
// (goemotions/data/sentiment_dict.json); a comment whose every tag is in one of the first two groups gets that polarity
// as its gold (+1 or -1), and every other comment (neutral, ambiguous, or tags of both polarities) is left out.
// eval/data/reddit/goemotions-polar.tsv is a sample of the test split made so; see eval/data/reddit/README.md.
//
//   tsx eval/reddit-set.ts GOEMOTIONS_TEST_TSV > eval/data/reddit/goemotions-polar.tsv
import { readFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { fnv1a32, parseGroundTruth, type RatedText } from './datasets.js'

export const REDDIT_SET = { name: 'reddit', kind: 'Reddit comments (GoEmotions)' } as const

export const REDDIT_FILE = fileURLToPath(new URL('data/reddit/goemotions-polar.tsv', import.meta.url))

/** The sample, in the VADER ground truth's format (id, rating, text), so every metric applies unchanged. */
export function loadRedditSet (file = REDDIT_FILE): RatedText[] {
  return parseGroundTruth(readFileSync(file, 'utf8'))
}

/** GoEmotions' emotions.txt, in order: a tag is an index into it. */
const EMOTIONS = [
  'admiration', 'amusement', 'anger', 'annoyance', 'approval', 'caring', 'confusion', 'curiosity', 'desire',
  'disappointment', 'disapproval', 'disgust', 'embarrassment', 'excitement', 'fear', 'gratitude', 'grief', 'joy', 'love',
  'nervousness', 'optimism', 'pride', 'realization', 'relief', 'remorse', 'sadness', 'surprise', 'neutral'
]

/** GoEmotions' sentiment_dict.json: the emotions of each polarity (the ambiguous group and neutral are neither). */
const POSITIVE = new Set(['amusement', 'excitement', 'joy', 'love', 'desire', 'optimism', 'caring', 'pride', 'admiration', 'gratitude', 'relief', 'approval'])
const NEGATIVE = new Set(['fear', 'nervousness', 'remorse', 'embarrassment', 'disappointment', 'sadness', 'grief', 'disgust', 'anger', 'annoyance', 'disapproval'])

export const SAMPLE_SIZE = 2000

/** The release quotes a comment that holds a quote mark as CSV does: outer quotes, inner ones doubled. */
function unquote (text: string): string {
  return /^".*"$/s.test(text) ? text.slice(1, -1).replace(/""/g, '"') : text
}

/** Gold polarity of a comment's tags: +1 or -1 when all are of one polarity, undefined otherwise. */
export function polarityOf (tags: readonly string[]): 1 | -1 | undefined {
  if (tags.length > 0 && tags.every(tag => POSITIVE.has(tag))) return 1
  if (tags.length > 0 && tags.every(tag => NEGATIVE.has(tag))) return -1
  return undefined
}

/**
 * The polar comments of a GoEmotions split (text, comma-separated emotion indexes, comment id per line), the
 * SAMPLE_SIZE first in FNV-1a order of their ids: a fixed pseudo-random sample that never looks at text or label.
 */
export function samplePolar (content: string, size = SAMPLE_SIZE): RatedText[] {
  const polar = content.split(/\r?\n/).flatMap(line => {
    if (line.trim() === '') return []
    const [text, tags, id] = line.split('\t')
    if (text === undefined || tags === undefined || id === undefined) throw new Error(`malformed GoEmotions line: ${line.slice(0, 80)}`)
    const rating = polarityOf(tags.split(',').map(i => EMOTIONS[Number(i)] ?? 'unknown'))
    const clean = unquote(text.trim()).replace(/\s+/g, ' ')
    return rating === undefined || clean === '' ? [] : [{ id, rating, text: clean }]
  })
  return polar
    .map(item => ({ item, key: fnv1a32(item.id) }))
    .sort((a, b) => a.key - b.key || (a.item.id < b.item.id ? -1 : 1))
    .slice(0, size)
    .map(({ item }) => item)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const source = process.argv[2]
  if (source === undefined) {
    console.error('usage: tsx eval/reddit-set.ts GOEMOTIONS_TEST_TSV > eval/data/reddit/goemotions-polar.tsv')
    process.exit(2)
  }
  for (const { id, rating, text } of samplePolar(readFileSync(source, 'utf8'))) process.stdout.write(`${id}\t${rating}\t${text}\n`)
}
