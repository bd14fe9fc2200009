// The confidence stays truthful when the Bee knows less: sentences written for this test, none from a data set.
import { test } from 'tap'
import { analyzeSentiment } from '../../../bees/sentiment-analyzer/analyze.js'
import { evidenceShare, KNOWN_WORDS_FOR_FULL_CONFIDENCE, NO_SENTIMENT_WORD_SHARE } from '../../../bees/sentiment-analyzer/model.js'

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
  for (const text of ['Good.', 'Fine.', 'fine.', 'ok', 'Wow', 'Bad.', 'Sure.']) {
    const { sentiment, confidence } = analyzeSentiment(text)
    t.not(sentiment, 'neutral', `${text} still gets a label`)
    t.ok(confidence <= 0.75 && confidence < clear - 0.2, `${text}: ${confidence}`)
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
    'Brilliant cast, dreadful script.',
    'great food, awful service'
  ]) {
    const { confidence } = analyzeSentiment(text)
    t.ok(confidence <= 0.85 && confidence < clear - 0.1, `${text}: ${confidence}`)
  }
})

// Code, logs, addresses and the like: no word in them is one VADER's lexicon knows or one the model weighs as a
// sentiment word, so whatever lean the learned view finds (its word-vector average, its bias) is not evidence.
const NO_SENTIMENT_WORDS = [
  'SELECT name FROM users WHERE id = 1',
  '2024-03-01 12:00:01 INFO worker started pid=4411',
  'git rebase -i HEAD~3',
  '221B Baker Street, London NW1 6XE',
  'for (let i = 0; i < n; i++) sum += a[i];',
  'GET /api/v1/users 200 12ms',
  '1600 Pennsylvania Avenue NW, Washington, DC 20500',
  '3.14159 2.71828 1.41421',
  'id,name,price\n1,apple,0.5\n2,pear,0.7',
  'Invoice 4471: 3 units at 19.99 each, total 59.97.'
]

test('off-domain text without a sentiment word gets a confidence near a toss-up, far below a clear sentence', async t => {
  const clear = lowestClear()
  for (const text of NO_SENTIMENT_WORDS) {
    const { confidence } = analyzeSentiment(text)
    t.ok(confidence <= 0.7 && confidence < clear - 0.25, `${text}: ${confidence}`)
  }
})

// These do have sentiment words ("price", "negative", "free"), and the Bee cannot tell technical English from a
// review with the same words, so they get what in-domain text with that evidence earns on the labelled sources
// (0.75-0.8), no more: well below a clear one. "free" is the one that reaches 0.8 (docs/bees/quality.md).
test('off-domain sentences that brush a sentiment word get less confidence than clear ones', async t => {
  const clear = lowestClear()
  for (const text of [
    'const total = items.reduce((sum, item) => sum + item.price, 0);',
    'Negative numbers sort before positive ones.',
    'Sort the array in place and free the buffer.'
  ]) {
    const { confidence } = analyzeSentiment(text)
    t.ok(confidence <= 0.82 && confidence < clear - 0.15, `${text}: ${confidence}`)
  }
})

test('the evidence share: none without a known word, full with enough of them and a sentiment word', async t => {
  const view = (known: number, weighty = 0) => ({ logit: 1, conflict: 0, known, weighty })
  const lexicon = (sentimentTokens: number) => ({ sentimentTokens })
  t.equal(evidenceShare(lexicon(1), view(0)), 0)
  t.ok(evidenceShare(lexicon(1), view(1)) > 0 && evidenceShare(lexicon(1), view(1)) < 1)
  t.equal(evidenceShare(lexicon(1), view(KNOWN_WORDS_FOR_FULL_CONFIDENCE)), 1)
  t.equal(evidenceShare(lexicon(0), view(10, 1)), 1, 'a word the model weighs as sentiment is enough')
  t.equal(evidenceShare(lexicon(0), view(10)), NO_SENTIMENT_WORD_SHARE, 'no sentiment word: the share is cut')
})
