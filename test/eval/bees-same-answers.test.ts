// Every eval text, and a larger sweep of generated text than the fast suite's, through the Bees and through the code
// before issue 47's speed work (test/fixtures/bees-before): the same label, score and confidence to the last bit, and the
// same summaries. Also VADER's compound against vader-sentiment itself on every fourth rated text.
import fc from 'fast-check'
import { test } from 'tap'
import vader from 'vader-sentiment'
import { analyzeSentiment } from '../../bees/sentiment-analyzer/analyze.js'
import { normalizeText } from '../../bees/sentiment-analyzer/signals.js'
import { vaderCompound } from '../../bees/sentiment-analyzer/vader-compound.js'
import { summarize } from '../../bees/text-summarizer/summarize.js'
import { analyzeSentiment as analyzedBefore } from '../fixtures/bees-before/sentiment-analyzer/analyze.js'
import { summarize as summarizedBefore } from '../fixtures/bees-before/text-summarizer/summarize.js'
import { anyText, BUDGETS, documents, evalTexts, groupedTexts, ratedTexts, sameAnalysis, sameSummary, sample } from '../bees/same-answers.js'

const texts = evalTexts()

test('every eval text gets the analysis it got before', async t => {
  t.ok(texts.length > 28000, `${texts.length} texts`)
  t.same(texts.filter(text => !sameAnalysis(analyzeSentiment(text), analyzedBefore(text))).map(text => text.slice(0, 80)), [])
})

test('VADER\'s compound is vader-sentiment\'s on every fourth rated text', async t => {
  // The whole analysis above already holds VADER's score (the frozen copy runs the library's rules); this compares the
  // port with polarity_scores itself, which alone took a third of this file's time on every text.
  const clean = sample(ratedTexts(), 4).map(normalizeText)
  t.same(clean.filter(text => vaderCompound(text) !== vader.SentimentIntensityAnalyzer.polarity_scores(text).compound).map(text => text.slice(0, 80)), [])
})

test('generated text gets the analysis it got before', async t => {
  fc.assert(fc.property(anyText, text => sameAnalysis(analyzeSentiment(text), analyzedBefore(text))), { numRuns: 10000 })
  t.pass('every generated text')
})

test('every eval document, and the rated texts alone and grouped into pages, get the summaries they got before', async t => {
  const all = [...documents().map(document => document.text), ...groupedTexts(ratedTexts(), 30), ...groupedTexts(ratedTexts(), 4), ...ratedTexts()]
  t.same(all.filter(text => !BUDGETS.every(budget => sameSummary(summarize(text, budget), summarizedBefore(text, budget)))).map(text => text.slice(0, 80)), [])
})

test('generated text gets the summaries it got before', async t => {
  const documentText = fc.array(anyText, { maxLength: 20 }).map(parts => parts.join(' '))
  fc.assert(fc.property(fc.oneof(anyText, documentText), fc.constantFrom(...BUDGETS), (text, budget) =>
    sameSummary(summarize(text, budget), summarizedBefore(text, budget))), { numRuns: 10000 })
  t.pass('every generated text')
})
