import { test } from 'tap'
import { analyzeSentiment, TUNED_SENTIMENT_MODEL } from '../../bees/sentiment-analyzer/analyze.js'
import { blendScore, type ScoreBlend } from '../../bees/sentiment-analyzer/model.js'
import type { SentimentSignals } from '../../bees/sentiment-analyzer/signals.js'
import { tuneScoreBlend, type TuningSet } from '../../eval/tune-sentiment.js'

const signals = (overrides: Partial<SentimentSignals> = {}): SentimentSignals => ({
  vader: 0, sentimentTokens: 0, emphasis: 0, wink: 0, socialCues: false, wordCount: 3, nonEnglish: false, words: ['plot'], hasWords: true, ...overrides
})
const blend: ScoreBlend = { vaderWeight: 0.5, learnedShare: 0.5, learnedShareSocial: 0.2, learnedScale: 1, silentThreshold: 0.3 }

test('the score moves the lexicon score towards the learned view by the share of its register', async t => {
  t.equal(blendScore(signals({ vader: 0.6, wink: 0.2 }), 0, blend), 0.2, 'plain text: half of the lexicon score 0.4')
  t.ok(Math.abs(blendScore(signals({ vader: 0.6, wink: 0.2, socialCues: true }), 0, blend) - 0.32) < 1e-12, 'social text keeps more of it')
  t.equal(blendScore(signals({ vader: -0.4, wink: -0.4 }), 10, blend), 0.5 * -0.4 + 0.5 * Math.tanh(10), 'a confident learned view can flip the sign')
})

test('text the lexicons find silent is labelled only when it has words and the learned view is strong enough', async t => {
  t.equal(blendScore(signals(), 0.2, blend), 0, 'a weak learned view leaves it neutral')
  t.equal(blendScore(signals(), -1, blend), 0.5 * Math.tanh(-1))
  t.equal(blendScore(signals({ words: ['!'], hasWords: false }), 5, blend), 0, 'punctuation alone is no evidence')
  t.equal(blendScore(signals({ vader: 0.8, wink: 0.8, nonEnglish: true }), 5, blend), 0, 'text that is not English is neutral')
})

test('the shipped model labels wordings the lexicons miss, and leaves statements of fact neutral', async t => {
  for (const text of ['The plot is predictable and the ending is obvious.', 'Soggy fries and a cold burger.']) {
    const result = analyzeSentiment(text)
    t.equal(result.sentiment, 'negative', text)
    t.ok(result.confidence > TUNED_SENTIMENT_MODEL.neutralConfidence, `${text}: confidence ${result.confidence}`)
  }
  t.equal(analyzeSentiment('It is raining in London.').sentiment, 'neutral')
})

// A deterministic stand-in for noise in [-1, 1).
const noise = (i: number): number => ((i * 7919) % 1000) / 500 - 1

function syntheticSet (logit: (rating: number, i: number) => number, publishedF1 = 0.5): { sets: TuningSet[]; logits: number[][] } {
  const items = Array.from({ length: 400 }, (_, i) => {
    const rating = (i % 2 === 0 ? 1 : -1) * (1 + (i % 3))
    // The lexicons read the sign right three times in four.
    const lexicon = (i % 4 === 0 ? -Math.sign(rating) : Math.sign(rating)) * (0.2 + 0.3 * Math.abs(noise(i)))
    return { id: String(i), rating, signals: signals({ vader: lexicon, wink: lexicon }), meanVector: [] }
  })
  const set = { name: 'synthetic', file: '', vader: { precision: 0, recall: 0, f1: publishedF1, r: 0.2 } }
  return { sets: [{ set, items }], logits: [items.map((item, i) => logit(item.rating, i))] }
}

test('the blend tuner leans on a learned view that reads the ratings, and not on one that is noise', async t => {
  const informed = syntheticSet((rating, i) => rating + noise(i))
  const learned = tuneScoreBlend(informed.sets, 0.5, informed.logits)
  t.ok(learned.blend.learnedShare >= 0.5, `informed share ${learned.blend.learnedShare}`)
  t.ok(learned.fit.worstMargin >= 1, 'and beats the published figures by a standard error')

  const noisy = syntheticSet((_, i) => 3 * noise(i * 31 + 7))
  const ignored = tuneScoreBlend(noisy.sets, 0.5, noisy.logits)
  t.ok(ignored.blend.learnedShare <= 0.1, `noise share ${ignored.blend.learnedShare}`)

  const unbeatable = syntheticSet((rating, i) => rating + noise(i), 0.999)
  const closest = tuneScoreBlend(unbeatable.sets, 0.5, unbeatable.logits)
  t.ok(closest.fit.worstMargin < 1, 'no blend beats an F1 of 0.999')
  t.ok(closest.blend.learnedShare >= 0.5, `so the tuner takes the one that comes closest: share ${closest.blend.learnedShare}`)
})
