// The confidence stays truthful when the Bee knows less: sentences written for this test, none from a data set.
import { test } from 'tap'
import { analyzeSentiment } from '../../../bees/sentiment-analyzer/analyze.js'
import { evidenceShare, KNOWN_WORDS_FOR_FULL_CONFIDENCE } from '../../../bees/sentiment-analyzer/model.js'

const CLEAR = [
  'This phone is absolutely wonderful and I love using it every day.',
  'The food was delicious and the staff were friendly.',
  'The worst hotel I have ever stayed in: dirty rooms, rude staff and broken beds.'
]

function lowestClear (): number {
  return Math.min(...CLEAR.map(text => analyzeSentiment(text).confidence))
}

test('clear sentences keep a high confidence', async t => {
  for (const text of CLEAR) t.ok(analyzeSentiment(text).confidence >= 0.9, `${text}: ${analyzeSentiment(text).confidence}`)
})

test('a very short text is thin evidence: its confidence stays near a toss-up, below any clear sentence', async t => {
  const clear = lowestClear()
  for (const text of ['Good.', 'Fine.', 'ok', 'Wow', 'Bad.', 'Sure.']) {
    const { sentiment, confidence } = analyzeSentiment(text)
    t.not(sentiment, 'neutral', `${text} still gets a label`)
    t.ok(confidence <= 0.75 && confidence < clear, `${text}: ${confidence}`)
  }
})

test('a word the model never learned is no evidence at all', async t => {
  t.equal(analyzeSentiment('meh').confidence, 0.5)
})

test('mixed sentences, whose evidence pulls both ways, get less confidence than clear ones', async t => {
  const clear = lowestClear()
  for (const text of [
    'The food was great but the service was terrible.',
    'I loved the screen, but the battery life is awful.',
    'Some parts were good and some were bad.',
    'Brilliant cast, dreadful script.'
  ]) {
    const { confidence } = analyzeSentiment(text)
    t.ok(confidence <= 0.85 && confidence < clear, `${text}: ${confidence}`)
  }
})

// The Bee cannot tell technical English from a review with the same words, so such a sentence gets what in-domain
// text with one weak sentiment word earns on the labelled sources (about 0.75-0.8), no more: well below a clear one.
test('off-domain sentences that only brush a sentiment word get less confidence than clear ones', async t => {
  const clear = lowestClear()
  for (const text of ['Negative numbers sort before positive ones.', 'Sort the array in place and free the buffer.']) {
    const { confidence } = analyzeSentiment(text)
    t.ok(confidence <= 0.82 && confidence < clear - 0.1, `${text}: ${confidence}`)
  }
})

test('the evidence share: none without a known word, full with enough of them', async t => {
  const view = (known: number) => ({ logit: 1, conflict: 0, known })
  t.equal(evidenceShare(view(0)), 0)
  t.ok(evidenceShare(view(1)) > 0 && evidenceShare(view(1)) < 1)
  t.equal(evidenceShare(view(KNOWN_WORDS_FOR_FULL_CONFIDENCE)), 1)
  t.equal(evidenceShare(view(10)), 1)
})
