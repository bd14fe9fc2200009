import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { isTuningItem } from '../../eval/datasets.js'
import { evaluateSentiment, formatSentimentTable } from '../../eval/sentiment.js'
import {
  bandedGoldLabel, confidentHalfAccuracy, expectedCalibrationError, goldLabel, macroF1, paperPolarScores, pearson,
  reliabilityBins, strongestRatedHalfAccuracy,
  type Label, type ScoredPrediction
} from '../../eval/sentiment-metrics.js'

const prediction = (rating: number, label: Label, confidence = 0.5): ScoredPrediction => ({ rating, label, confidence, score: 0 })

test('gold labels: the paper uses the sign; the banded variant widens neutral', async t => {
  t.equal(goldLabel(0.1), 'positive')
  t.equal(goldLabel(-2), 'negative')
  t.equal(goldLabel(0), 'neutral')
  t.equal(bandedGoldLabel(0.3), 'neutral')
  t.equal(bandedGoldLabel(-0.5), 'negative')
})

test('paper precision, recall and F1', async t => {
  // gold: pos, neg, pos, neg, neutral. Polar predictions: items 1, 2, 4, 5;
  // correct: items 1 and 4. Polar gold: items 1-4.
  const scores = paperPolarScores([
    prediction(2, 'positive'),
    prediction(-1, 'positive'),
    prediction(0.5, 'neutral'),
    prediction(-3, 'negative'),
    prediction(0, 'positive')
  ])
  t.equal(scores.precision, 0.5)
  t.equal(scores.recall, 0.5)
  t.equal(scores.f1, 0.5)
  t.same(paperPolarScores([prediction(1, 'neutral')]), { precision: 0, recall: 0, f1: 0 })
})

test('Pearson r', async t => {
  t.equal(pearson([1, 2, 3], [2, 4, 6]), 1)
  t.equal(pearson([1, 2, 3], [3, 2, 1]), -1)
  t.equal(pearson([1, 2, 3, 4], [1, 3, 2, 4]), 0.8)
  t.equal(pearson([1, 1, 1], [1, 2, 3]), 0)
  t.throws(() => pearson([1], [1, 2]), RangeError)
})

test('three-class macro-F1 with the neutral band', async t => {
  // banded gold: pos, neg, neutral, neg, neutral.
  // positive F1 = 2*1/(2+1), negative F1 = 2*1/(1+2), neutral F1 = 1.
  const value = macroF1([
    prediction(2, 'positive'),
    prediction(-1, 'positive'),
    prediction(0.3, 'neutral'),
    prediction(-3, 'negative'),
    prediction(0, 'neutral')
  ])
  t.ok(Math.abs(value - (2 / 3 + 2 / 3 + 1) / 3) < 1e-12)
})

test('accuracy on the most confident half', async t => {
  const predictions = [
    prediction(1, 'positive', 0.9),
    prediction(1, 'negative', 0.8),
    prediction(-1, 'negative', 0.3),
    prediction(-1, 'negative', 0.95)
  ]
  t.equal(confidentHalfAccuracy(predictions), 1)
  // Five items: the top three are 0.95 (right), 0.9 (right), 0.8 (wrong).
  t.equal(confidentHalfAccuracy([...predictions, prediction(2, 'positive', 0.1)]), 2 / 3)
  // Ties keep input order: the first of two equally confident predictions wins.
  t.equal(confidentHalfAccuracy([prediction(1, 'negative', 0.5), prediction(1, 'positive', 0.5)]), 0)
  t.equal(confidentHalfAccuracy([]), 0)
})

test('accuracy on the half the raters rated most strongly ignores the stated confidence', async t => {
  const predictions = [
    prediction(-3, 'negative', 0.1),
    prediction(0.2, 'negative', 0.99),
    prediction(2.5, 'neutral', 0.05),
    prediction(-0.1, 'positive', 0.98)
  ]
  // The strong ratings (-3, 2.5) form the half: one right, one neutral (wrong), whatever the confidences say.
  t.equal(strongestRatedHalfAccuracy(predictions), 1 / 2)
  // Ranked by confidence instead, the two weakly rated items, both wrong, form the half.
  t.equal(confidentHalfAccuracy(predictions), 0)
})

test('expected calibration error', async t => {
  t.ok(Math.abs(expectedCalibrationError([prediction(1, 'positive', 0.9), prediction(1, 'negative', 0.9)]) - 0.4) < 1e-12)
  t.equal(expectedCalibrationError([prediction(1, 'positive', 1), prediction(1, 'negative', 0)]), 0)
  // Bin 0.2-0.3: one of two right at 0.25 (gap 0.25); bin 0.8-0.9: three of four right at 0.8 and 0.85 (gap 0.075).
  const mixed = [
    prediction(1, 'positive', 0.2), prediction(1, 'negative', 0.3 - 1e-9),
    prediction(1, 'positive', 0.8), prediction(-1, 'negative', 0.8), prediction(1, 'positive', 0.85), prediction(1, 'negative', 0.85)
  ]
  t.ok(Math.abs(expectedCalibrationError(mixed) - (2 * 0.25 + 4 * 0.075) / 6) < 1e-6)
  t.equal(expectedCalibrationError([]), 0)
})

test('reliability bins: equal widths, counts, mean confidence and accuracy; a confidence of 1 in the last bin', async t => {
  const bins = reliabilityBins([prediction(1, 'positive', 0.05), prediction(1, 'negative', 0.55), prediction(1, 'positive', 0.45), prediction(1, 'positive', 1)], 4)
  t.same(bins.map(b => [b.low, b.high, b.count]), [[0, 0.25, 1], [0.25, 0.5, 1], [0.5, 0.75, 1], [0.75, 1, 1]])
  t.same(bins.map(b => b.accuracy), [1, 1, 0, 1])
  t.same(bins.map(b => b.meanConfidence), [0.05, 0.45, 0.55, 1])
  t.same(reliabilityBins([], 2).map(b => b.count), [0, 0], 'empty bins are kept, with zeros')
})

test('evaluateSentiment scores the reporting half and falls back to sign(label) x confidence', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'sentiment-eval-'))
  const lines = Array.from({ length: 40 }, (_, i) => {
    const rating = i % 2 === 0 ? 1.5 : -2
    return `${i}\t${rating}\t${rating > 0 ? 'pos' : 'neg'} ${i}`
  })
  writeFileSync(join(dir, 'tweets_GroundTruth.txt'), lines.join('\r\n') + '\r\n')
  const reporting = lines.filter((_, i) => !isTuningItem('tweets', String(i))).length

  // A perfect analyzer that, like the HTTP Bee, returns no score.
  const analyze = async (text: string): Promise<{ sentiment: string; confidence: number }> =>
    ({ sentiment: text.startsWith('pos') ? 'positive' : 'negative', confidence: 0.8 })
  const rows = await evaluateSentiment(analyze, { dataDir: dir, sets: ['tweets'] })
  t.equal(rows.length, 1)
  const row = rows[0]!
  t.equal(row.items, reporting)
  t.equal(row.f1, 1)
  t.ok(Math.abs(row.r - 1) < 1e-9, 'sign(label) x confidence correlates perfectly with two-valued ratings')
  t.equal(row.confidentHalfAccuracy, 1)
  t.ok(row.textsPerSecond > 0)
  t.equal(row.vader.f1, 0.96)
  t.equal(row.whole.items, 40, 'the whole set is both halves')
  t.equal(row.whole.f1, 1)
  t.ok(Math.abs(row.whole.r - 1) < 1e-9)
  t.same(row.reliability.map(b => b.count), [0, 0, 0, 0, 0, 0, 0, 0, reporting, 0], 'every confidence of 0.8 in the ninth bin')

  const table = formatSentimentTable(rows).split('\n')
  t.equal(table.length, 3)
  t.match(table[0], /\| set \| n \| P \(VADER\)/)
  t.match(table[2], /^\| tweets \| \d+ \| 1\.000 \(0\.99\) \|.* \| 40 \| 1\.000 \| 1\.000 \|$/)

  await t.rejects(evaluateSentiment(() => ({ sentiment: 'happy', confidence: 1 }), { dataDir: dir, sets: ['tweets'] }))
})
