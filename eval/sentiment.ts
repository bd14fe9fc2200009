// Scores a sentiment analyzer on the REPORTING halves of the VADER ground-truth
// sets, next to VADER's published numbers, and its F1 and r on each whole set
// (half of which it was tuned on). The analyzer may be the in-process function,
// a client of the HTTP Bee or a baseline. Run through eval/run.ts (`npm run eval`).
import { mapConcurrent } from './concurrency.js'
import { DEFAULT_DATA_DIR, SENTIMENT_SETS, loadSet, splitHalf, type PublishedScores, type RatedText } from './datasets.js'
import {
  confidentHalfAccuracy, expectedCalibrationError, macroF1, paperPolarScores, pearson, reliabilityBins,
  type Label, type ReliabilityBin, type ScoredPrediction
} from './sentiment-metrics.js'

export interface SentimentOutput { sentiment: string; confidence: number; score?: number }

export type SentimentAnalyzer = (text: string) => Promise<SentimentOutput> | SentimentOutput

export interface EvaluateSentimentOptions {
  dataDir?: string
  /** Evaluate only these sets (by name); default all four. */
  sets?: readonly string[]
  /** Texts in flight at once; above 1 only helps an asynchronous (HTTP) analyzer. Default 1. */
  concurrency?: number
  /**
   * Untimed analyses first, cycling through the set's texts, so texts/s measures the steady state, not JIT
   * compilation. Default 5000: with 1000, the first set timed (tweets) ran at two thirds of its steady speed.
   */
  warmUp?: number
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
  /** The reporting half's 10 confidence bins, for the reliability diagram. */
  reliability: ReliabilityBin[]
  textsPerSecond: number
  /** F1 and r on the whole set: both halves. */
  whole: { items: number; f1: number; r: number }
  vader: PublishedScores
}

const DEFAULT_WARM_UP = 5000

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

export async function evaluateSentiment (analyze: SentimentAnalyzer, options: EvaluateSentimentOptions = {}): Promise<SentimentRow[]> {
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR
  const wanted = options.sets
  const concurrency = options.concurrency ?? 1
  const rows: SentimentRow[] = []
  for (const set of SENTIMENT_SETS) {
    if (wanted !== undefined && !wanted.includes(set.name)) continue
    const all = loadSet(set, dataDir)
    const items = splitHalf(set.name, all, 'reporting')
    const warmUp = items.length === 0 ? 0 : options.warmUp ?? DEFAULT_WARM_UP
    for (let i = 0; i < warmUp; i++) await analyze(items[i % items.length]!.text)
    const started = performance.now()
    const predictions = await predict(analyze, items, concurrency)
    const seconds = (performance.now() - started) / 1000
    const whole = [...predictions, ...await predict(analyze, splitHalf(set.name, all, 'tuning'), concurrency)]
    rows.push({
      set: set.name,
      items: items.length,
      ...paperPolarScores(predictions),
      r: pearson(predictions.map(p => p.score), predictions.map(p => p.rating)),
      macroF1: macroF1(predictions),
      confidentHalfAccuracy: confidentHalfAccuracy(predictions),
      calibrationError: expectedCalibrationError(predictions),
      reliability: reliabilityBins(predictions),
      textsPerSecond: items.length / seconds,
      whole: { items: whole.length, f1: paperPolarScores(whole).f1, r: pearson(whole.map(p => p.score), whole.map(p => p.rating)) },
      vader: set.vader
    })
  }
  return rows
}

async function predict (analyze: SentimentAnalyzer, items: readonly RatedText[], concurrency: number): Promise<ScoredPrediction[]> {
  const outputs = concurrency > 1
    ? await mapConcurrent(items, concurrency, async item => await analyze(item.text))
    : await analyzeInOrder(analyze, items.map(item => item.text))
  return items.map((item, i) => {
    const output = outputs[i]!
    const label = toLabel(output.sentiment)
    return { rating: item.rating, label, confidence: output.confidence, score: signedScore(label, output) }
  })
}

async function analyzeInOrder (analyze: SentimentAnalyzer, texts: readonly string[]): Promise<SentimentOutput[]> {
  const outputs: SentimentOutput[] = []
  for (const text of texts) {
    const result = analyze(text)
    // Awaiting a plain value still costs a microtask per text, which would
    // understate the in-process throughput.
    outputs.push(result instanceof Promise ? await result : result)
  }
  return outputs
}

const fixed = (value: number, digits = 3): string => value.toFixed(digits)

export function formatSentimentTable (rows: readonly SentimentRow[]): string {
  const header = [
    '| set | n | P (VADER) | R (VADER) | F1 (VADER) | r (VADER) | macro-F1 | confident-half acc | ECE | texts/s | whole set: n | F1 | r |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
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
    String(Math.round(row.textsPerSecond)),
    String(row.whole.items),
    fixed(row.whole.f1),
    fixed(row.whole.r)
  ].join(' | ') + ' |')
  return [...header, ...body].join('\n')
}
