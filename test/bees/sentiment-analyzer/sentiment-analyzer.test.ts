import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { test } from 'tap'
import fc from 'fast-check'
import vader from 'vader-sentiment'
import { SENTIMENT_MAX_CHARS, analyzeSentiment } from '../../../bees/sentiment-analyzer/analyze.js'
import { looksNonEnglish } from '../../../bees/sentiment-analyzer/language.js'
import { normalizeText } from '../../../bees/sentiment-analyzer/signals.js'
import { hasSocialCues, hasStretchedWord } from '../../../bees/sentiment-analyzer/social-cues.js'
import { EMPHASIS_CAP, fourPlaces, vaderCompound, vaderScore } from '../../../bees/sentiment-analyzer/vader-compound.js'
import { LONG_RUN, Tokens } from '../../../bees/sentiment-analyzer/wink-tokens.js'
import { wordFeatures } from '../../../bees/sentiment-analyzer/word-features.js'
import { fitSparseLogistic } from '../../../eval/sparse-logistic.js'
import { SENTIMENT_SETS, fnv1a32, isTuningItem, loadSet, parseGroundTruth, splitHalf } from '../../../eval/datasets.js'

test('clear positive and negative sentences get the right label and sign', async t => {
  const positive = analyzeSentiment('I love this phone, it is absolutely wonderful!')
  t.equal(positive.sentiment, 'positive')
  t.ok(positive.score > 0.5)
  const negative = analyzeSentiment('This was a terrible, awful experience. I hate it.')
  t.equal(negative.sentiment, 'negative')
  t.ok(negative.score < -0.5)
})

test('negation flips polarity', async t => {
  t.equal(analyzeSentiment('The food was good.').sentiment, 'positive')
  t.equal(analyzeSentiment('not good').sentiment, 'negative')
  t.equal(analyzeSentiment('The food was not good.').sentiment, 'negative')
})

test('text without sentiment-bearing words is neutral with low confidence', async t => {
  for (const text of ['The meeting is scheduled for Tuesday at noon.', '', '!!!', '12345']) {
    const result = analyzeSentiment(text)
    t.equal(result.sentiment, 'neutral', text)
    t.equal(result.score, 0, text)
    t.ok(result.confidence < 0.2, `${text}: confidence ${result.confidence}`)
  }
})

test('non-English text is neutral with low confidence, even with cognates of English sentiment words', async t => {
  for (const text of [
    'Ce film est excellent, je le recommande.',
    'Das ist ein sehr gutes Produkt und ich bin zufrieden.',
    'La película es muy buena pero el final no me gustó.',
    'Это очень хороший фильм',
    '这部电影非常好'
  ]) {
    const result = analyzeSentiment(text)
    t.equal(result.sentiment, 'neutral', text)
    t.ok(result.confidence < 0.2, `${text}: confidence ${result.confidence}`)
  }
})

test('a foreign phrase inside English text does not hide its sentiment', async t => {
  t.equal(analyzeSentiment("C'est la vie, this is still a great day").sentiment, 'positive')
  t.equal(analyzeSentiment("Don't hate El Crimen del Padre Amaro because it's anti Catholic. Hate it because it's lousy.").sentiment, 'negative')
  t.notOk(looksNonEnglish('YoYo.com: Buy Kid\'s Toys at YOYO.COM. FREE 1-2 day shipping both ways'))
})

test('confidence is a probability and grows with clearer evidence', async t => {
  const weak = analyzeSentiment('The movie was fine, I suppose, although the second half dragged on for a while.')
  const strong = analyzeSentiment('Absolutely wonderful, I love it!! :)')
  for (const result of [weak, strong]) {
    t.ok(result.confidence >= 0 && result.confidence <= 1)
    t.ok(result.score >= -1 && result.score <= 1)
  }
  t.ok(strong.confidence > weak.confidence, `${strong.confidence} > ${weak.confidence}`)
})

test('confidence tracks accuracy on real data: the more confident half is more often right', async t => {
  // Tuning half only, so this test does not peek at the reported numbers.
  const set = SENTIMENT_SETS.find(s => s.name === 'amazon')!
  const results = splitHalf(set.name, loadSet(set), 'tuning').map(item => ({ item, result: analyzeSentiment(item.text) }))
    .filter(({ result }) => result.sentiment !== 'neutral')
    .sort((a, b) => b.result.confidence - a.result.confidence)
  const accuracy = (rows: typeof results): number =>
    rows.filter(({ item, result }) => (item.rating > 0 ? 'positive' : 'negative') === result.sentiment).length / rows.length
  const half = Math.floor(results.length / 2)
  t.ok(accuracy(results.slice(0, half)) > accuracy(results.slice(half)) + 0.1)
})

test('results are deterministic', async t => {
  const texts = ['Great!!! :)', 'meh. not sure about this one', 'The plot was thin but the acting was superb.']
  for (const text of texts) t.same(analyzeSentiment(text), analyzeSentiment(text))
})

test('text at the documented limit finishes quickly; longer text is refused', async t => {
  const sentence = 'The service was slow but the food was really excellent. '
  const long = sentence.repeat(Math.ceil(SENTIMENT_MAX_CHARS / sentence.length)).slice(0, SENTIMENT_MAX_CHARS)
  const started = performance.now()
  const result = analyzeSentiment(long)
  t.ok(performance.now() - started < 1000, 'under a second even with coverage instrumentation')
  t.equal(result.sentiment, 'positive')
  t.throws(() => analyzeSentiment(long + 'x'), RangeError)
})

test('text at the limit without white space is not slower than prose', async t => {
  // These took about a second each in wink-nlp's tokenizer, which is quadratic in the length of a run.
  for (const piece of ['#', '!', '&', 'a-', 'a']) {
    const run = piece.repeat(SENTIMENT_MAX_CHARS / piece.length)
    const started = performance.now()
    const result = analyzeSentiment(run)
    const elapsed = performance.now() - started
    t.ok(elapsed < 250, `${JSON.stringify(piece)} x ${run.length / piece.length}: ${elapsed.toFixed(0)} ms`)
    t.ok(result.confidence >= 0 && result.confidence <= 1)
  }
  const tokens = new Tokens()
  tokens.read('a'.repeat(2 * LONG_RUN + 2))
  t.same([tokens.length, [...tokens.spaced.subarray(0, tokens.length)]], [3, [0, 1, 1]], 'runs are cut into pieces of LONG_RUN code units, as if spaced')
  tokens.read('short words stay as they are')
  t.equal(tokens.length, 6)
})

test('HTML entities are decoded and URLs dropped before scoring', async t => {
  t.equal(normalizeText('fish &amp; chips &lt;3 &#33;'), 'fish & chips <3 !')
  t.equal(normalizeText('look http://url_removed now').replace(/\s+/g, ' '), 'look now')
  t.equal(analyzeSentiment('Just posted a photo http://url_removed').sentiment, 'neutral')
})

test('the port of VADER\'s rules gives exactly vader-sentiment\'s compound score', async t => {
  const samples = SENTIMENT_SETS.flatMap(set => loadSet(set).slice(0, 400).map(item => item.text))
  const mismatches = samples.filter(text => vaderCompound(text) !== vader.SentimentIntensityAnalyzer.polarity_scores(text).compound)
  t.same(mismatches, [])

  // Every word and emoticon of the lexicon alone: the port reads the package's vader_lexicon.txt, the library its own table.
  const lexicon = readFileSync(createRequire(import.meta.url).resolve('vader-sentiment/vader_lexicon.txt'), 'utf8')
    .split('\n').filter(line => line !== '').map(line => line.split('\t')[0]!)
  t.ok(lexicon.length > 7000)
  t.same(lexicon.filter(word => vaderCompound(word) !== vader.SentimentIntensityAnalyzer.polarity_scores(word).compound), [])

  const pieces = ['good', 'GOOD', 'bad', 'not', "isn't", 'kind', 'of', 'but', 'BUT', 'very', 'least', 'at', 'never', 'so',
    ':)', ':-(', '<3', '!', '?', '.', ',', "'", '"', '-', '!!', '?!?', 'the', 'shit', 'sort of', 'lol', 'x', ' ', '  ', '\t',
    'this', 'kiss', 'death', 'yeah', 'right', 'bomb', 'hand', 'to', 'mouth', 'just', 'enough', 'sort', 'uh-uh', 'Not', 'The']
  fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 25 }), parts => {
    const text = parts.join('')
    return vaderCompound(text) === vader.SentimentIntensityAnalyzer.polarity_scores(text).compound
  }), { numRuns: 3000 })
  fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 25 }), parts => {
    const text = parts.join(' ')
    return vaderCompound(text) === vader.SentimentIntensityAnalyzer.polarity_scores(text).compound
  }), { numRuns: 3000 })
})

test('the compound\'s rounding is the library\'s parseFloat(x.toFixed(4)) to the bit, at and around every tie', async t => {
  const library = (x: number): number => parseFloat(x.toFixed(4))
  const differs = (x: number): boolean => !Object.is(fourPlaces(x), library(x))
  const found: number[] = []
  // Every 4-place tie in [-1, 1] and the doubles nearest it on both sides, every 4-place decimal, and both zeros.
  for (let k = -10000; k <= 10000; k++) {
    for (const x of [(k + 0.5) / 10000, k / 10000]) {
      let below = x
      let above = x
      for (let step = 0; step < 8; step++) {
        if (differs(below)) found.push(below)
        if (differs(above)) found.push(above)
        below = nextDouble(below, -1)
        above = nextDouble(above, 1)
      }
    }
  }
  for (const x of [0, -0, 1, -1, 5e-5, -5e-5, 4.9999e-5, -4.9999e-5, 1e-300, -1e-300]) if (differs(x)) found.push(x)
  fc.assert(fc.property(fc.double({ min: -1, max: 1, noNaN: true }), x => !differs(x)), { numRuns: 200_000 })
  t.same(found, [])
})

/** The double next to x towards +∞ (direction 1) or -∞ (-1). */
function nextDouble (x: number, direction: 1 | -1): number {
  if (x === 0) return direction * Number.MIN_VALUE
  const bits = new BigInt64Array(new Float64Array([x]).buffer)
  bits[0] = bits[0]! + ((x > 0) === (direction > 0) ? 1n : -1n)
  return new Float64Array(bits.buffer)[0]!
}

test('emphasis: "!" and sentiment words in capitals amid lower case, as VADER reads them, each capped', async t => {
  t.equal(vaderScore('The food was good.').emphasis, 0)
  t.equal(vaderScore('The food was GOOD!').emphasis, 2)
  t.equal(vaderScore('THE FOOD WAS GOOD').emphasis, 0, 'all capitals is no emphasis: VADER boosts only capitals amid lower case')
  t.equal(vaderScore('It was good. Wow!!!!!!!').emphasis, EMPHASIS_CAP, 'a run of marks counts up to the cap')
  t.equal(vaderScore('It was AWFUL AWFUL AWFUL AWFUL AWFUL food!!!!!').emphasis, 2 * EMPHASIS_CAP)
  t.equal(vaderScore('2024-03-01 INFO worker started').emphasis, 0, 'capitals on a word with no valence are not emphasis')
  t.equal(vaderScore('Deploy finished!').emphasis, 0, 'nor is "!" in text without a sentiment word')
})

test('social-media cues: emoticons, tags, "lol", "!!" and stretched words in any case', async t => {
  for (const text of ['so good :)', 'bad day :OD', '@anna thanks', '#blessed', 'LOL that cat', 'Wait, what?!', 'I <3 it', 'Sooo tired', 'yesss', 'WOOOO']) {
    t.ok(hasSocialCues(text), text)
  }
  for (const text of ['The committee adjourned.', 'A good, solid film.', 'Call 020-7946 at 10:30.', 'Über-cool café']) {
    t.notOk(hasSocialCues(text), text)
  }
  t.ok(hasStretchedWord('sOoO'), 'case is folded')
  t.ok(hasStretchedWord('1000'), 'digits repeat too')
  t.notOk(hasStretchedWord('so-o-o'), 'the run must be unbroken')
  t.notOk(hasStretchedWord('ééé'), 'only ASCII word characters count, as in a non-Unicode \\w')

  // The scan replaces the slow /(\w)\1\1/i and must match the same texts.
  const units = ['a', 'A', 's', 'S', 'o', '0', '_', ' ', '-', 'é', 'ſ', 'K', 'k', '\u212A', '!']
  fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...units), maxLength: 12 }), text =>
    hasStretchedWord(text) === /(\w)\1\1/i.test(text)), { numRuns: 20000 })
})

test('ground-truth parsing handles CRLF and keeps ids as strings', async t => {
  t.same(parseGroundTruth('1_1\t-0.9\tbad thing.\r\n2\t2.5\tgood\r\n'), [
    { id: '1_1', rating: -0.9, text: 'bad thing.' },
    { id: '2', rating: 2.5, text: 'good' }
  ])
  t.throws(() => parseGroundTruth('oops\n'))
})

test('the tuning/reporting split is stable and roughly half and half', async t => {
  t.equal(fnv1a32(''), 0x811c9dc5)
  t.equal(fnv1a32('a'), 0xe40c292c)
  t.equal(isTuningItem('tweets', '1'), isTuningItem('tweets', '1'))
  for (const set of SENTIMENT_SETS) {
    const items = loadSet(set)
    const tuning = splitHalf(set.name, items, 'tuning')
    const reporting = splitHalf(set.name, items, 'reporting')
    t.equal(tuning.length + reporting.length, items.length, `${set.name}: halves cover the set`)
    const share = tuning.length / items.length
    t.ok(share > 0.45 && share < 0.55, `${set.name}: tuning share ${share.toFixed(3)}`)
  }
})

test('word features: unigrams, bigrams, and negation scope up to punctuation or a contrast', async t => {
  t.same(wordFeatures('Not good, but fun!'), ['not', '~good', 'not good', 'but', 'fun', 'but fun', '!'])
  t.same(wordFeatures('I didn’t like it'), ['i', "didn't", "i didn't", '~like', "didn't like", '~it', 'like it'])
  t.same(wordFeatures(''), [])
})

test('the word model fit is deterministic and learns which words mean what', async t => {
  const examples = ['great fun', 'great cast', 'dull plot', 'dull cast'].map((text, i) => ({
    dense: [1], words: wordFeatures(text), positive: i < 2 ? 1 : 0, weight: 1
  }))
  const options = { lambda: 1e-3, iterations: 200, minCount: 1 }
  const fit = fitSparseLogistic(examples, options)
  t.same(fitSparseLogistic(examples, options), fit)
  t.ok(fit.words.get('great')! > 0 && fit.words.get('dull')! < 0)
  t.notOk(fitSparseLogistic(examples, { ...options, minCount: 2 }).words.has('fun'), 'words seen once get no weight')
})

test('the confidence model ranks a lexicon label it has learnt to distrust below a clear one', async t => {
  // VADER reads "predictable" as neutral and "funny" as positive; in reviews a predictable comedy is a pan.
  const clear = analyzeSentiment('A wonderful, moving film with a superb cast.')
  const doubtful = analyzeSentiment('Predictable and only funny in the trailer.')
  t.equal(clear.sentiment, 'positive')
  t.ok(clear.confidence > doubtful.confidence, `${clear.confidence} > ${doubtful.confidence}`)
})
