// The summarizer gives, byte for byte, the summaries of the code before issue 47's speed work (a frozen copy in
// test/fixtures/bees-before), on every eval document and a sample of the rated texts, and on generated text.
// test/eval/bees-same-answers.test.ts runs every eval text.
import fc from 'fast-check'
import { test } from 'tap'
import { summarize } from '../../../bees/text-summarizer/summarize.js'
import { summarize as summarizedBefore } from '../../fixtures/bees-before/text-summarizer/summarize.js'
import { anyText, BUDGETS, documents, groupedTexts, ratedTexts, sameSummary, sample } from '../same-answers.js'

test('every eval document and a sample of the rest get the summaries they got before', async t => {
  const texts = [...documents().map(document => document.text), ...sample(groupedTexts(ratedTexts(), 30), 16), ...sample(ratedTexts(), 100)]
  const changed = texts.filter(text => !BUDGETS.every(budget => sameSummary(summarize(text, budget), summarizedBefore(text, budget))))
  t.same(changed.map(text => text.slice(0, 80)), [])
})

test('generated text gets the summaries it got before', async t => {
  const documentText = fc.array(anyText, { maxLength: 12 }).map(parts => parts.join(' '))
  fc.assert(fc.property(fc.oneof(anyText, documentText), fc.constantFrom(...BUDGETS), (text, budget) =>
    sameSummary(summarize(text, budget), summarizedBefore(text, budget))), { numRuns: 500 })
  t.pass('every generated text')
})
