// wink-sentiment.ts against wink-nlp itself: readDoc's steps run from wink-nlp's own modules on a cache as a new
// process has it (test/fixtures/bees-before/sentiment-analyzer/wink-fresh.ts).
import fc from 'fast-check'
import { test } from 'tap'
import winkNLP from 'wink-nlp'
import model from 'wink-eng-lite-web-model'
import { normalizeText } from '../../../bees/sentiment-analyzer/signals.js'
import { winkSentiment } from '../../../bees/sentiment-analyzer/wink-sentiment.js'
import { breakLongRuns } from '../../fixtures/bees-before/sentiment-analyzer/signals.js'
import { winkSentiment as readDocSentiment } from '../../fixtures/bees-before/sentiment-analyzer/wink-fresh.js'
import { anyText, evalTexts, sample } from '../same-answers.js'

const sameAsWink = (text: string): boolean => Object.is(winkSentiment(text), readDocSentiment(breakLongRuns(text), true))

test('the reference is readDoc: on a cache the calls share, it gives readDoc\'s score', async t => {
  const nlp = winkNLP(model, ['sbd', 'negation', 'sentiment'])
  // Both caches start new and read the same texts in the same order.
  const texts = sample(evalTexts(), 97).map(text => breakLongRuns(normalizeText(text)))
  t.same(texts.filter(text => !Object.is(Number(nlp.readDoc(text).out(nlp.its.sentiment)), readDocSentiment(text, false))), [])
})

test('the score is wink-nlp\'s on a sample of every eval set and on generated text', async t => {
  t.same(sample(evalTexts(), 50).map(normalizeText).filter(text => !sameAsWink(text)), [])
  fc.assert(fc.property(anyText, text => sameAsWink(normalizeText(text))), { numRuns: 600 })
})

test('runs without white space are cut as the old breakLongRuns cut them', async t => {
  const unit = fc.constantFrom('a', 'good', '.', '-', '#', "n't", ':)', 'Mr.', '😀', 'é', '\u3000', '\v', '\ufeff', '\u2028')
  const run = fc.array(unit, { minLength: 20, maxLength: 120 }).map(units => units.join(''))
  const text = fc.array(fc.tuple(run, fc.constantFrom(' ', '\n', '\u00a0', '\t ')), { maxLength: 4 }).map(parts => parts.map(([words, gap]) => words + gap).join(''))
  fc.assert(fc.property(text, sameAsWink), { numRuns: 150 })
  t.pass('every generated run')
})

test('a text gets the same score whatever the process read before it', async t => {
  // wink-nlp kept "friend's" as one token for the process's life once a text ended in "friend's.", which changed this score.
  const text = 'I went to Bachi Burger on a friend\'s recommendation and was not disappointed.'
  const first = winkSentiment(text)
  winkSentiment('It was my friend\'s.')
  t.equal(winkSentiment(text), first)
  t.equal(first, readDocSentiment(text, true))
})
