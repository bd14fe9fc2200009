import { test } from 'tap'
import { noCounts, type Verdict } from '../../../src/core/health/counts.js'
import { figuresOf } from '../../../src/core/health/figures.js'
import { bucketOf, LATENCY_BOUNDS_MS, quantileOf } from '../../../src/core/health/latency.js'
import { byReliability, meetsSuccessRate } from '../../../src/core/health/reliability.js'
import { HealthRecorder } from '../../../src/core/health/recorder.js'

/** The figures of runs as a recorder counts them. */
function figuresOfRuns (runs: Array<[Verdict, number]>) {
  const recorder = new HealthRecorder(() => 0)
  for (const [verdict, ms] of runs) recorder.record('bee', verdict, ms)
  return figuresOf(recorder.drain()[0], 60)
}

test('a latency falls in the first bucket whose bound it does not exceed', async (t) => {
  t.equal(bucketOf(0), 0)
  t.equal(bucketOf(1), 0, 'a bound is inclusive')
  t.equal(bucketOf(1.01), 1)
  t.equal(bucketOf(LATENCY_BOUNDS_MS.at(-1)! + 1), LATENCY_BOUNDS_MS.length, 'slower than every bound: the overflow')
})

test('quantiles are interpolated inside their bucket, and the overflow reports its floor', async (t) => {
  const counts = noCounts().latency
  t.equal(quantileOf(counts, 0.5), null, 'nothing counted')
  counts[bucketOf(15)] = 10
  const median = quantileOf(counts, 0.5)!
  t.ok(median > 10 && median <= 20, `all in (10, 20] ms: the median ${median} too`)
  t.ok(quantileOf(counts, 0.95)! > median, 'a higher quantile, further into the bucket')
  counts[bucketOf(600)] = 90
  const p50 = quantileOf(counts, 0.5)!
  t.ok(p50 > 500 && p50 <= 1000, `90 of 100 runs took (500, 1000] ms: so did the median (${p50})`)
  const overflow = noCounts().latency
  overflow[bucketOf(1e9)] = 1
  t.equal(quantileOf(overflow, 0.95), LATENCY_BOUNDS_MS.at(-1), 'slower than the last bound is all that is known')
})

test('figures: success rate over all runs, conformance over the runs that answered, nulls without runs', async (t) => {
  t.same(figuresOf(undefined, 60), { windowMinutes: 60, calls: 0, successRate: null, p50Ms: null, p95Ms: null, conformance: null })
  const figures = figuresOfRuns([['ok', 3], ['ok', 3], ['ok', 3], ['failed', 3], ['nonconforming', 3]])
  t.match(figures, { calls: 5, successRate: 0.6, conformance: 0.75 }, '3 of 5 succeeded; of the 4 that answered, 3 conformed')
  t.ok(figures.p50Ms! > 2 && figures.p50Ms! <= 5)
  t.match(figuresOfRuns([['failed', 3]]), { calls: 1, successRate: 0, conformance: null }, 'no answer: nothing to conform, so no conformance')
  t.equal(figuresOfRuns([['ok', 1], ['ok', 1], ['failed', 1]]).successRate, 0.6667, 'to 4 decimals')
})

test('reliability: the higher success rate first, then the lower p95; Bees without runs last', async (t) => {
  const sure = figuresOfRuns([['ok', 100], ['ok', 100]])
  const quick = figuresOfRuns([['ok', 3], ['ok', 3]])
  const shaky = figuresOfRuns([['ok', 1], ['failed', 1]])
  const unknown = figuresOf(undefined, 60)
  const ranked = [unknown, shaky, sure, quick].sort(byReliability)
  t.same(ranked, [quick, sure, shaky, unknown])
  t.ok(meetsSuccessRate(sure, 1))
  t.notOk(meetsSuccessRate(shaky, 0.51))
  t.notOk(meetsSuccessRate(unknown, 0), 'without runs, no rate to meet even 0 with')
})
