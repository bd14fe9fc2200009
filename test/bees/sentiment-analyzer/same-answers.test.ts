// The analysis gives, to the last bit, the answers of the code before issue 47's speed work (a frozen copy in
// test/fixtures/bees-before), on a sample of every eval set and on generated text. test/eval/bees-same-answers.test.ts
// runs every eval text.
import fc from 'fast-check'
import { test } from 'tap'
import { analyzeSentiment } from '../../../bees/sentiment-analyzer/analyze.js'
import { analyzeSentiment as analyzedBefore } from '../../fixtures/bees-before/sentiment-analyzer/analyze.js'
import { anyText, evalTexts, sameAnalysis, sample } from '../same-answers.js'

test('a sample of every eval set gets the answers it got before', async t => {
  const texts = sample(evalTexts(), 50)
  t.same(texts.filter(text => !sameAnalysis(analyzeSentiment(text), analyzedBefore(text))), [])
})

test('generated text gets the answers it got before', async t => {
  fc.assert(fc.property(anyText, text => sameAnalysis(analyzeSentiment(text), analyzedBefore(text))), { numRuns: 600 })
  t.pass('every generated text')
})
