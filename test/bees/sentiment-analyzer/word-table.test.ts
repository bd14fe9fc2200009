import { readFileSync } from 'node:fs'
import { test } from 'tap'
import fc from 'fast-check'
import { TUNED_SENTIMENT_MODEL } from '../../../bees/sentiment-analyzer/analyze.js'
import type { SentimentModelFile } from '../../../bees/sentiment-analyzer/model-file.js'
import { NEGATED, PLAIN, VECTOR } from '../../../bees/sentiment-analyzer/model.js'
import { WordTable } from '../../../bees/sentiment-analyzer/word-table.js'

/** Whether the table answers every probe as a Map of the same entries does, value for value (-0 and NaN included). */
function answersAsMap (keys: readonly string[], values: readonly number[], probes: readonly string[]): boolean {
  const table = new WordTable(keys, values)
  const map = new Map(keys.map((key, i) => [key, values[i]!]))
  return [...keys, ...probes].every(probe => Object.is(table.get(probe), map.get(probe)))
}

test('the shipped model reads back every word and vector weight of sentiment-model.json exactly', async t => {
  const file = JSON.parse(readFileSync(new URL('../../../bees/sentiment-analyzer/sentiment-model.json', import.meta.url), 'utf8')) as SentimentModelFile
  const { words, vectors } = TUNED_SENTIMENT_MODEL.learned
  t.ok(file.words.every((word, i) => Object.is(words.get(word), file.weights[i])), `${file.words.length} words`)
  t.ok(file.vectorWords.every((word, i) => Object.is(vectors.get(word), file.vectorWeights[i])), `${file.vectorWords.length} vector words`)
  t.equal(words.get('~great great'), undefined)
})

test('the shipped unigram table holds each unigram\'s weight, plain and negated, and its vector, as the file has them', async t => {
  const file = JSON.parse(readFileSync(new URL('../../../bees/sentiment-analyzer/sentiment-model.json', import.meta.url), 'utf8')) as SentimentModelFile
  const unigrams = TUNED_SENTIMENT_MODEL.learned.unigrams!
  const valueOf = (word: string, column: number): number => {
    const at = unigrams.indexOf(word)
    return at === -1 ? NaN : unigrams.valueAt(at, column)
  }
  const unigramWords = file.words.map((word, i) => [word, file.weights[i]!] as const).filter(([word]) => !word.includes(' '))
  t.ok(unigramWords.every(([word, weight]) => word.startsWith('~')
    ? Object.is(valueOf(word.slice(1), NEGATED), weight)
    : Object.is(valueOf(word, PLAIN), weight)), `${unigramWords.length} unigram weights`)
  t.ok(file.vectorWords.every((word, i) => Object.is(valueOf(word, VECTOR), file.vectorWeights[i])), `${file.vectorWords.length} vectors`)
  t.same([unigrams.indexOf('great great'), unigrams.indexOf('~great')], [-1, -1], 'no bigram, no negated key')
})

test('a table of several columns gives each key its row', async t => {
  const table = new WordTable(['good', 'bad'], [1, 2, 3, 4, 5, 6], 3)
  t.same([table.valueAt(table.indexOf('bad'), 0), table.valueAt(table.indexOf('bad'), 2), table.get('good'), table.indexOf('ok')], [4, 6, 1, -1])
  t.throws(() => new WordTable(['good', 'bad'], [1, 2, 3], 2), RangeError)
})

test('a word the table lacks is undefined, however close it is to one it has', async t => {
  const keys = ['good', 'not good', '~good', 'cliché', 'château', '€', '“', '', 'a', '\uFEFFbom']
  const probes = ['goo', 'goods', 'Good', 'not  good', '~goo', 'cliche', 'clichés', 'clich', 'chateau', 'château', '$', '”',
    'b', 'aa', 'good\u0000', '\uD83D', '\uDE00', '😀', 'a😀', 'cliché\uD800', 'bom', '\uFEFFbo']
  t.ok(answersAsMap(keys, keys.map((_, i) => i / 7 - 0.5), probes))
})

test('any set of distinct words answers as a Map: every key its own value, any other string undefined', async t => {
  const word = fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }))
  fc.assert(fc.property(
    fc.uniqueArray(word, { maxLength: 200 }),
    fc.array(fc.double(), { minLength: 200, maxLength: 200 }),
    fc.array(fc.oneof(word, fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 50 }),
    (keys, values, probes) => answersAsMap(keys, values.slice(0, keys.length), probes)
  ), { numRuns: 500 })
  t.pass('500 tables')
})

test('a table it could not answer as a Map does is refused', async t => {
  t.throws(() => new WordTable(['good', 'bad'], [1]), RangeError, 'keys and values differ in length')
  t.throws(() => new WordTable(['good', 'bad', 'good'], [1, 2, 3]), /"good" is listed twice/)
  t.throws(() => new WordTable(['ok', 'half \uD800 a pair'], [1, 2]), /lone surrogate/)
})
