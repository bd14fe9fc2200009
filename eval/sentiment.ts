// Scores a sentiment analyzer on the REPORTING halves of the VADER ground-truth
// sets, next to VADER's published numbers. The analyzer may be the in-process
// function or a client of the HTTP Bee.
//
// Run directly (from the repository root) to evaluate analyzeSentiment:
//   TS_NODE_TRANSPILE_ONLY=1 node --import @tapjs/typescript/import eval/sentiment.ts
import { pathToFileURL } from 'node:url'
import { DEFAULT_DATA_DIR, SENTIMENT_SETS, loadSet, splitHalf, type PublishedScores } from './datasets.js'
import {
  confidentHalfAccuracy, expectedCalibrationError, macroF1, paperPolarScores, pearson,
  type Label, type ScoredPrediction
} from './sentiment-metrics.js'

export interface SentimentOutput { sentiment: string; confidence: number; score?: number }

export type SentimentAnalyzer = (text: string) => Promise<SentimentOutput> | SentimentOutput

export interface EvaluateSentimentOptions {
  dataDir?: string
  /** Evaluate only these sets (by name); default all four. */
  sets?: readonly string[]
}

export interface SentimentRow {
  set: string
  items: number
  precision: number
  recall: number
  f1: number
  r: number
  macroF1: number
  confidentHalfAccuracy: number
  calibrationError: number
  textsPerSecond: number
  vader: PublishedScores
}

function toLabel (sentiment: string): Label {
  if (sentiment === 'positive' || sentiment === 'negative' || sentiment === 'neutral') return sentiment
  throw new Error(`analyzer returned unknown sentiment ${JSON.stringify(sentiment)}`)
}

// Over HTTP only the label and confidence come back; sign(label) x confidence
// is the best available stand-in for a signed score.
function signedScore (label: Label, output: SentimentOutput): number {
  if (output.score !== undefined) return output.score
  return label === 'positive' ? output.confidence : label === 'negative' ? -output.confidence : 0
}

const WARM_UP_TEXTS = 1000

export async function evaluateSentiment (analyze: SentimentAnalyzer, options: EvaluateSentimentOptions = {}): Promise<SentimentRow[]> {
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR
  const wanted = options.sets
  const rows: SentimentRow[] = []
  for (const set of SENTIMENT_SETS) {
    if (wanted !== undefined && !wanted.includes(set.name)) continue
    const items = splitHalf(set.name, loadSet(set, dataDir), 'reporting')
    // Untimed warm-up so texts/s measures the steady state, not JIT compilation.
    for (const item of items.slice(0, WARM_UP_TEXTS)) await analyze(item.text)
    const predictions: ScoredPrediction[] = []
    const started = performance.now()
    for (const item of items) {
      const result = analyze(item.text)
      // Awaiting a plain value still costs a microtask per text, which would
      // understate the in-process throughput.
      const output = result instanceof Promise ? await result : result
      const label = toLabel(output.sentiment)
      predictions.push({ rating: item.rating, label, confidence: output.confidence, score: signedScore(label, output) })
    }
    const seconds = (performance.now() - started) / 1000
    rows.push({
      set: set.name,
      items: items.length,
      ...paperPolarScores(predictions),
      r: pearson(predictions.map(p => p.score), predictions.map(p => p.rating)),
      macroF1: macroF1(predictions),
      confidentHalfAccuracy: confidentHalfAccuracy(predictions),
      calibrationError: expectedCalibrationError(predictions),
      textsPerSecond: items.length / seconds,
      vader: set.vader
    })
  }
  return rows
}

const fixed = (value: number, digits = 3): string => value.toFixed(digits)

export function formatSentimentTable (rows: readonly SentimentRow[]): string {
  const header = [
    '| set | n | P (VADER) | R (VADER) | F1 (VADER) | r (VADER) | macro-F1 | confident-half acc | ECE | texts/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
  ]
  const body = rows.map(row => '| ' + [
    row.set,
    String(row.items),
    `${fixed(row.precision)} (${fixed(row.vader.precision, 2)})`,
    `${fixed(row.recall)} (${fixed(row.vader.recall, 2)})`,
    `${fixed(row.f1)} (${fixed(row.vader.f1, 2)})`,
    `${fixed(row.r)} (${fixed(row.vader.r)})`,
    fixed(row.macroF1),
    fixed(row.confidentHalfAccuracy),
    fixed(row.calibrationError),
    String(Math.round(row.textsPerSecond))
  ].join(' | ') + ' |')
  return [...header, ...body].join('\n')
}

async function main (): Promise<void> {
  // Imported lazily so HTTP-based callers of evaluateSentiment never load the wink model.
  const { analyzeSentiment } = await import('../bees/sentiment-analyzer/analyze.js')
  console.log(formatSentimentTable(await evaluateSentiment(analyzeSentiment)))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
