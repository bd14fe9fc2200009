// Does the shipped confidence hold on text from a source its calibration never saw? On the reporting halves of the
// four VADER sets, the three UCI sets and the Reddit comments, each source's confidence is recomputed with the shipped
// calibration's features refitted on the other sources only (eval/leave-one-source-out.ts); the worst source is the
// headline. The UCI and Reddit sets also get the figures the VADER table has, since the word model saw none of their
// text.
// In-process only: the refit needs the model's inputs, which the HTTP API does not return.
import { analyzeSentiment, TUNED_SENTIMENT_MODEL } from '../bees/sentiment-analyzer/analyze.js'
import { blendScore, learnedView } from '../bees/sentiment-analyzer/model.js'
import { extractSignals } from '../bees/sentiment-analyzer/signals.js'
import { DEFAULT_DATA_DIR, SENTIMENT_SETS, loadSet, splitHalf, type RatedText } from './datasets.js'
import { calibrationCase, leaveOneSourceOut, type SourceCases, type TransferRow } from './leave-one-source-out.js'
import {
  expectedCalibrationError, goldLabel, paperPolarScores, pearson, reliabilityBins, type ReliabilityBin, type ScoredPrediction
} from './sentiment-metrics.js'
import { loadUnseenSets } from './unseen-sets.js'

export interface UnseenRow {
  set: string
  kind: string
  items: number
  /** Share of texts whose label is the gold one (a neutral label is never right here: the gold is never neutral). */
  accuracy: number
  f1: number
  r: number
  calibrationError: number
  reliability: ReliabilityBin[]
}

export interface TransferReport {
  /** Indexes of the calibration features the shipped model weighs: the ones refitted per source. */
  features: number[]
  rows: TransferRow[]
  unseen: UnseenRow[]
}

function sourceCases (source: string, items: readonly RatedText[]): SourceCases {
  const model = TUNED_SENTIMENT_MODEL
  return {
    source,
    cases: items.map(item => {
      const signals = extractSignals(item.text)
      const view = learnedView(signals, model.learned)
      return calibrationCase(item.rating, blendScore(signals, view.logit, model), signals, view)
    })
  }
}

function unseenRow (set: string, kind: string, items: readonly RatedText[]): UnseenRow {
  const predictions: ScoredPrediction[] = items.map(item => {
    const { sentiment: label, confidence, score } = analyzeSentiment(item.text)
    return { rating: item.rating, label, confidence, score }
  })
  return {
    set,
    kind,
    items: predictions.length,
    accuracy: predictions.filter(p => p.label === goldLabel(p.rating)).length / predictions.length,
    f1: paperPolarScores(predictions).f1,
    r: pearson(predictions.map(p => p.score), predictions.map(p => p.rating)),
    calibrationError: expectedCalibrationError(predictions),
    reliability: reliabilityBins(predictions)
  }
}

export function evaluateTransfer (dataDir = DEFAULT_DATA_DIR): TransferReport {
  const features = TUNED_SENTIMENT_MODEL.learned.calibration.flatMap((weight, i) => (weight === 0 ? [] : [i]))
  const vader = SENTIMENT_SETS.map(set => ({ name: set.name, items: splitHalf(set.name, loadSet(set, dataDir), 'reporting') }))
  const unseen = loadUnseenSets().map(({ name, kind, items }) => ({ name, kind, items: splitHalf(name, items, 'reporting') }))
  const sources = [...vader, ...unseen].map(({ name, items }) => sourceCases(name, items))
  return {
    features,
    rows: leaveOneSourceOut(sources, features),
    unseen: unseen.map(({ name, kind, items }) => unseenRow(name, kind, items))
  }
}
