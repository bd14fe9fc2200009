import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { reliabilitySvg } from '../../eval/reliability-svg.js'
import { writeResults } from '../../eval/results-file.js'
import type { SentimentRow } from '../../eval/sentiment.js'
import { reliabilityBins, type ScoredPrediction } from '../../eval/sentiment-metrics.js'

const predictions: ScoredPrediction[] = [
  { rating: 2, label: 'positive', confidence: 0.95, score: 0.8 },
  { rating: -1, label: 'positive', confidence: 0.9, score: 0.3 },
  { rating: 1, label: 'positive', confidence: 0.62, score: 0.2 },
  { rating: 0.5, label: 'neutral', confidence: 0.06, score: 0 }
]

/**
 * A strict check for the XML this writer can produce: every tag closed in order, every attribute double-quoted
 * without a raw "<" or "&", text without a raw "<" or a bare "&". Throws with the reason.
 */
function checkWellFormed (xml: string): void {
  const open: string[] = []
  const TAG = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<&]*(?:&#?\w+;[^"<&]*)*")*)\s*(\/?)>/y
  const TEXT = /(?:[^<&]|&#?\w+;)*/y
  let at = 0
  while (at < xml.length) {
    TEXT.lastIndex = at
    at += TEXT.exec(xml)![0].length
    if (at === xml.length) break
    TAG.lastIndex = at
    const tag = TAG.exec(xml)
    if (tag === null) throw new Error(`malformed at ${at}: ${xml.slice(at, at + 40)}`)
    const [whole, closing, name, , selfClosing] = tag
    if (closing === '/') {
      if (open.pop() !== name) throw new Error(`</${name}> closes nothing open at ${at}`)
    } else if (selfClosing !== '/') open.push(name!)
    at += whole.length
  }
  if (open.length > 0) throw new Error(`unclosed: ${open.join(', ')}`)
}

test('the well-formedness check refuses what it should', async t => {
  t.throws(() => checkWellFormed('<svg><g></svg>'))
  t.throws(() => checkWellFormed('<svg><text>a < b</text></svg>'))
  t.throws(() => checkWellFormed('<svg width=3></svg>'))
  t.throws(() => checkWellFormed('<svg><text>AT&T</text></svg>'))
  t.doesNotThrow(() => checkWellFormed('<svg a="1"><text>AT&#38;T</text><rect/></svg>\n'))
})

test('the reliability diagram is well-formed SVG with one bar per non-empty bin', async t => {
  const svg = reliabilitySvg('tweets <&> "calibration"', reliabilityBins(predictions))
  t.doesNotThrow(() => checkWellFormed(svg), 'well-formed')
  t.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  t.equal(svg.match(/class="bin"/g)?.length, 3, 'bins 0, 6 and 9')
  t.match(svg, /<line [^>]*stroke-dasharray/, 'the diagonal')
  t.match(svg, />2<\/text>/, 'the count of the 0.9 bin')
  t.notMatch(svg, /<&>/, 'the title is escaped')
  // The 0.9 bin: one of two right, so its bar reaches half way up the 320-pixel plot from y = 360.
  t.match(svg, /class="bin" x="[\d.]+" y="200" width="[\d.]+" height="160"/)
})

test('RESULTS.md holds the tables and links a diagram per set, which is written beside it', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'results-'))
  const scores = { items: 4, precision: 0.5, recall: 0.5, f1: 0.5, r: 0.25, macroF1: 0.4, confidentHalfAccuracy: 0.5, textsPerSecond: 1000 }
  const row = (set: string): SentimentRow => ({
    ...scores,
    set,
    calibrationError: 0.123,
    reliability: reliabilityBins(predictions),
    whole: { items: 8, f1: 0.6, r: 0.3 },
    vader: { precision: 0.99, recall: 0.94, f1: 0.96, r: 0.881 }
  })
  const markdown = writeResults(dir, {
    mode: 'in-process',
    sentiment: { apiary: [row('tweets'), row('movie')], vader: [row('tweets'), row('movie')] },
    summaries: [{ title: 'Summaries: news', rows: [{ system: 'Apiary', budget: '150 words', documents: 2, rouge1: 0.7, rouge2: 0.6, rougeL: 0.65 }] }]
  })
  t.equal(readFileSync(join(dir, 'RESULTS.md'), 'utf8'), markdown)
  t.same(readdirSync(join(dir, 'reliability')).sort(), ['movie.svg', 'tweets.svg'])
  t.match(markdown, '| tweets | 4 | 0.123 | [reliability/tweets.svg](reliability/tweets.svg) |')
  t.match(markdown, '![movie: reliability of confidence](reliability/movie.svg)')
  t.match(markdown, '| Apiary | 150 words | 2 | 0.7000 | 0.6000 | 0.6500 |')
  t.match(markdown, /### VADER \(vader-sentiment\), run here\n\n\| set \| F1 \| r \| whole set: F1 \| r \|/)
  t.match(readFileSync(join(dir, 'reliability', 'tweets.svg'), 'utf8'), 'tweets: expected calibration error 0.123')
})

test('the transfer section names the worst left-out source against the goal and links a diagram per source', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'results-'))
  const bins = reliabilityBins(predictions)
  const transferRow = (source: string, calibrationError: number) => ({ source, items: 4, calibrationError, reliability: bins })
  const write = (worst: number): string => writeResults(dir, {
    mode: 'in-process',
    summaries: [],
    transfer: {
      features: [0, 1],
      rows: [transferRow('tweets', worst), transferRow('uci-yelp', 0.02)],
      unseen: [{ set: 'uci-yelp', kind: 'restaurant reviews', items: 4, accuracy: 0.75, f1: 0.8, r: 0.5, calibrationError: 0.03, reliability: bins }]
    }
  })
  const missed = write(0.107)
  t.match(missed, '**Worst source: tweets, expected calibration error 0.107** (goal <= 0.05: misses it). What was tried')
  t.match(missed, '(../docs/bees/sentiment-calibration.md)', 'a miss links the write-up of why')
  t.match(missed, '| uci-yelp | 4 | 0.020 | [reliability/loso-uci-yelp.svg](reliability/loso-uci-yelp.svg) |')
  t.match(missed, '| uci-yelp | restaurant reviews | 4 | 0.750 | 0.800 | 0.500 | 0.030 | [reliability/uci-yelp.svg](reliability/uci-yelp.svg) |')
  t.same(readdirSync(join(dir, 'reliability')).sort(), ['loso-tweets.svg', 'loso-uci-yelp.svg', 'uci-yelp.svg'])
  const met = write(0.05)
  t.match(met, '**Worst source: tweets, expected calibration error 0.050** (goal <= 0.05: meets it).')
  t.notMatch(met, 'What was tried')
})
