import fc from 'fast-check'
import { test } from 'tap'
import { splitSentences } from '../../../bees/text-summarizer/sentences.js'
import { summarize, SUMMARY_MAX_CHARS, type Summary } from '../../../bees/text-summarizer/summarize.js'

const countWords = (text: string): number => text.split(/\s+/).filter(word => word !== '').length
const sentencesOf = (text: string): string[] => splitSentences(text).map(({ start, end }) => text.slice(start, end))

/**
 * Whether `summary` is what the summarizer promises: the whole trimmed text, a verbatim prefix of one sentence, or
 * some of the sentences, in text order, joined by one space, or by a line break after a sentence without closing
 * punctuation. Backtracks, because one sentence may start another.
 */
function isExtract (text: string, sentences: readonly string[], summary: string): boolean {
  if (summary === text.trim() || sentences.some(sentence => summary !== '' && sentence.startsWith(summary))) return true
  const failed = new Set<string>()
  const from = (next: number, at: number): boolean => {
    if (at === summary.length) return true
    const key = `${next}:${at}`
    if (failed.has(key)) return false
    for (let i = next; i < sentences.length; i++) {
      const sentence = sentences[i] ?? ''
      const end = at + sentence.length
      if (!summary.startsWith(sentence, at)) continue
      if (end === summary.length ? from(i + 1, end) : summary[end] === separatorAfter(sentence) && from(i + 1, end + 1)) return true
    }
    failed.add(key)
    return false
  }
  return from(0, 0)
}

const separatorAfter = (sentence: string): string => /[\p{L}\p{N}\p{M}]$/u.test(sentence) ? '\n' : ' '

function checkContract (text: string, maxWords: number, result: Summary): void {
  const sentences = sentencesOf(text)
  if (countWords(result.summary) > maxWords) throw new Error(`summary has ${countWords(result.summary)} words, budget ${maxWords}`)
  if (!isExtract(text, sentences, result.summary)) throw new Error(`summary is not an extract: ${JSON.stringify(result.summary)}`)
  if (result.keyPoints.length > 5) throw new Error('more than five key points')
  for (const point of result.keyPoints) {
    if (!text.includes(point)) throw new Error(`key point not in the text: ${JSON.stringify(point)}`)
    if (countWords(point) > maxWords) throw new Error('key point longer than the budget')
  }
  if (!(result.confidence >= 0 && result.confidence <= 1)) throw new Error(`confidence ${result.confidence} outside [0, 1]`)
  const hasWords = /[\p{L}\p{N}]/u.test(text)
  if (hasWords !== (result.keyPoints.length > 0)) throw new Error('key points empty for text with words, or the reverse')
}

// Text with every troublesome feature: abbreviations, decimals, ellipses, quotes, newlines, CJK, stray punctuation.
const messyText = fc.array(fc.constantFrom(
  'The', 'council', 'voted', 'Mr.', 'Dr.', 'U.S.', 'e.g.', '3.14', 'No.', 'J.', 'said', 'river', 'flood', 'barrier',
  'Smith', 'Inc.', 'etc.', 'water', '"Stop."', '(really).', 'Yes!', 'Why?', 'Wait...', 'end.', '\n', '\n\n', '—',
  '...', 'Müller', 'z.', 'B.', '東京は首都です。', '日本', '！', 'x', '', '  '
), { maxLength: 120 }).map(words => words.join(' '))

const anyText = fc.oneof(messyText, fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ maxLength: 300 }))

// Clean sentences whose boundaries no splitter could dispute, to check the extract property independently.
const VOCABULARY = ['council', 'river', 'flood', 'barrier', 'water', 'homes', 'town', 'budget', 'engineers', 'winter',
  'residents', 'approved', 'plan', 'school', 'farmers', 'storm', 'insurance', 'shops', 'railway', 'bridge']
const cleanSentence = fc.tuple(
  fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 25 }),
  fc.constantFrom('.', '!', '?')
).map(([words, end]) => {
  const [first = '', ...rest] = words
  return `${first.charAt(0).toUpperCase()}${first.slice(1)}${rest.map(word => ` ${word}`).join('')}${end}`
})
const cleanDocument = fc.tuple(
  fc.array(cleanSentence, { minLength: 1, maxLength: 30 }),
  fc.array(fc.constantFrom(' ', '\n', '\n\n', '  '), { minLength: 30, maxLength: 30 })
)

const budget = fc.integer({ min: 1, max: 80 })

test('property: the summary keeps to the contract on any text', async (t) => {
  fc.assert(fc.property(anyText, budget, (text, maxWords) => {
    checkContract(text, maxWords, summarize(text, maxWords))
  }), { numRuns: 500 })
  t.pass('word budget, verbatim sentences in text order, key points from the text, confidence in [0, 1]')
})

test('property: on cleanly punctuated text the summary is a subsequence of the written sentences', async (t) => {
  fc.assert(fc.property(cleanDocument, budget, ([sentences, gaps], maxWords) => {
    const text = sentences.map((sentence, i) => `${sentence}${gaps[i] ?? ' '}`).join('')
    const { summary, keyPoints } = summarize(text, maxWords)
    if (!isExtract(text, sentences, summary)) throw new Error(`not an ordered extract: ${JSON.stringify(summary)}`)
    if (keyPoints.some(point => !sentences.some(sentence => sentence.startsWith(point)))) throw new Error('key point is not a sentence')
    if (countWords(summary) > maxWords) throw new Error('over budget')
  }), { numRuns: 300 })
  t.pass('verbatim and in order')
})

test('property: the same input gives the same output', async (t) => {
  fc.assert(fc.property(anyText, budget, (text, maxWords) => {
    const first = JSON.stringify(summarize(text, maxWords))
    if (JSON.stringify(summarize(text, maxWords)) !== first) throw new Error('not deterministic')
  }), { numRuns: 200 })
  t.pass('deterministic')
})

test('property: sentences are ordered, disjoint, trimmed and cover every non-space character', async (t) => {
  fc.assert(fc.property(anyText, text => {
    let covered = 0
    for (const { start, end } of splitSentences(text)) {
      if (start < covered || end <= start) throw new Error('spans overlap or are empty')
      if (/\S/.test(text.slice(covered, start))) throw new Error('text between sentences was lost')
      if (/^\s|\s$/.test(text.slice(start, end))) throw new Error('sentence not trimmed')
      covered = end
    }
    if (/\S/.test(text.slice(covered))) throw new Error('text after the last sentence was lost')
  }), { numRuns: 500 })
  t.pass('a partition of the text')
})

test('one sentence is its own summary and key point', async (t) => {
  const text = '  The bridge reopened on Monday after repairs.\n'
  t.same(summarize(text), { summary: 'The bridge reopened on Monday after repairs.', keyPoints: ['The bridge reopened on Monday after repairs.'], confidence: 1 })
})

test('the whole text, trimmed and with its own spacing, when it fits the budget', async (t) => {
  const text = 'First paragraph here.\n\nSecond one follows. And a third sentence.'
  const result = summarize(text, 20)
  t.equal(result.summary, text)
  t.equal(result.confidence, 1)
  t.same(result.keyPoints.slice().sort(), ['And a third sentence.', 'First paragraph here.', 'Second one follows.'])
})

test('text with no words gives an empty summary instead of throwing', async (t) => {
  for (const text of ['', '   \n\t ', '!!! ... ?', '— — —', '¿¡']) {
    t.same(summarize(text), { summary: '', keyPoints: [], confidence: 0 }, JSON.stringify(text))
  }
})

test('the budget must be a positive integer', async (t) => {
  for (const maxWords of [0, -3, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    t.throws(() => summarize('Some text.', maxWords), RangeError, String(maxWords))
  }
})

test('text without punctuation is one sentence, cut to a verbatim prefix when too long', async (t) => {
  const text = Array.from({ length: 40 }, (_, i) => `word${i % 7}`).join(' ')
  const result = summarize(text, 10)
  t.equal(result.summary, text.split(' ').slice(0, 10).join(' '))
  t.same(result.keyPoints, [result.summary])
  t.ok(result.confidence > 0 && result.confidence < 1, `confidence ${result.confidence}`)
})

test('unpunctuated lines are sentences of their own', async (t) => {
  t.same(sentencesOf('Shopping list\nApples and pears\nBread from the baker'), ['Shopping list', 'Apples and pears', 'Bread from the baker'])
  // A hard-wrapped line that goes on in lower case is the same sentence.
  t.same(sentencesOf('The meeting was held\nin the town hall. It ended late.'), ['The meeting was held\nin the town hall.', 'It ended late.'])
})

test('a title is left out of the summary of a text with sentences; list lines are joined by line breaks', async (t) => {
  const text = 'Flood barrier approved for the river town\n\nThe council approved a flood barrier for the river town on ' +
    'Monday. Engineers say the barrier will protect homes from winter floods. The vote was close. Shops near the ' +
    'bridge welcomed the plan. A school choir sang.'
  const result = summarize(text, 20)
  t.match(result.summary, /^The council approved a flood barrier for the river town on Monday\. /)
  t.notMatch(result.summary, 'Flood barrier approved', 'the title is not in the summary')
  t.equal(result.keyPoints[0], 'Flood barrier approved for the river town', 'the title is still the most central key point')
  t.equal(summarize('Apples and pears from the market\nBread from the baker in town\nMilk and the market apples', 11).summary,
    'Apples and pears from the market\nMilk and the market apples')
})

test('a sentence longer than the budget is skipped for one that fits', async (t) => {
  const long = 'The flood barrier along the river will protect the town and its homes from the river flood for many years.'
  const text = `${long} The river flood barrier works. Unrelated remark.`
  const result = summarize(text, 6)
  t.equal(result.summary, 'The river flood barrier works.')
  t.equal(result.keyPoints[0], long.split(' ').slice(0, 6).join(' '), 'a key point longer than the budget is cut like the summary')
})

test('abbreviations, initials, decimals, ellipses and quotes do not end sentences', async (t) => {
  t.same(sentencesOf('Mr. Smith met Dr. Jones at 3.14 p.m. today. They talked.'), ['Mr. Smith met Dr. Jones at 3.14 p.m. today.', 'They talked.'])
  t.same(sentencesOf('The U.S. Army left. It moved to the U.S. Then it stayed.'), ['The U.S. Army left.', 'It moved to the U.S.', 'Then it stayed.'])
  t.same(sentencesOf('J. R. R. Tolkien wrote it, e.g. in Oxford. Fine.'), ['J. R. R. Tolkien wrote it, e.g. in Oxford.', 'Fine.'])
  t.same(sentencesOf('He said "Stop." Then he left. "Is it so?" she asked. Wait... what? Yes!'), ['He said "Stop."', 'Then he left.', '"Is it so?" she asked.', 'Wait... what?', 'Yes!'])
  t.same(sentencesOf('He works at Acme Inc. The firm paid $3.50 (really). Acme Inc. said no.'), ['He works at Acme Inc.', 'The firm paid $3.50 (really).', 'Acme Inc. said no.'])
  t.same(sentencesOf('See example.com for details.Next time.'), ['See example.com for details.Next time.'])
})

test('German: abbreviations such as "z. B." and "Dr." stay inside the sentence', async (t) => {
  const text = 'Die Stadt plant z. B. einen neuen Deich am Fluss. Dr. Müller leitet das Projekt seit 2021. ' +
    'Der Deich soll die Stadt vor dem Hochwasser schützen. Gestern regnete es in Berlin. ' +
    'Der neue Deich am Fluss kostet 38 Mio. Euro.'
  t.same(sentencesOf(text), [
    'Die Stadt plant z. B. einen neuen Deich am Fluss.',
    'Dr. Müller leitet das Projekt seit 2021.',
    'Der Deich soll die Stadt vor dem Hochwasser schützen.',
    'Gestern regnete es in Berlin.',
    'Der neue Deich am Fluss kostet 38 Mio. Euro.'
  ])
  const result = summarize(text, 20)
  checkContract(text, 20, result)
  t.notMatch(result.summary, 'Berlin', 'the off-topic sentence is left out')
  t.equal(result.keyPoints.at(-1), 'Gestern regnete es in Berlin.', 'and is the least central key point')
})

test('Japanese: sentences end at 。！？ and related sentences are central', async (t) => {
  const text = '東京は日本の首都です。東京には多くの人が住んでいます！昨日は雨でした。東京の電車はとても便利です。'
  t.same(sentencesOf(text), ['東京は日本の首都です。', '東京には多くの人が住んでいます！', '昨日は雨でした。', '東京の電車はとても便利です。'])
  const result = summarize(text)
  t.equal(result.summary, text, 'no spaces means one word, so the whole text fits')
  t.equal(result.keyPoints.length, 4)
  t.equal(result.keyPoints.at(-1), '昨日は雨でした。')
})

const ARTICLE = [
  'The city council approved a new solar farm on the old airfield on Tuesday, after a long debate about energy costs.',
  'The solar farm will cover 40 hectares of the airfield and supply power to about 9,000 homes in the city.',
  'Councillors said the solar farm would cut the energy bills of the council and its schools by a third.',
  'In other news, a local bakery won a national prize for its sourdough bread.',
  'Construction of the solar farm on the airfield will begin in the spring and take about a year.',
  'Some residents near the airfield objected to the solar panels, saying they would spoil the view.',
  'The council promised to plant hedges around the solar farm to screen the panels from nearby homes.',
  'The weather on Sunday was mild, with light winds from the west.',
  'Energy from the solar farm will be sold to the grid when the council does not need it, raising money for the city.'
].join(' ')

test('a news-like article: the summary picks the central sentences and leaves out the asides', async (t) => {
  const result = summarize(ARTICLE, 60)
  checkContract(ARTICLE, 60, result)
  t.match(result.summary, /^The city council approved a new solar farm/, 'the lead is central and comes first')
  t.notMatch(result.summary, 'bakery')
  t.notMatch(result.summary, 'weather')
  for (const point of result.keyPoints) t.match(point, /solar|energy/i, 'every key point is on topic')
  t.ok(result.confidence > 0.3 && result.confidence < 1, `confidence ${result.confidence}`)
  t.ok(summarize(ARTICLE, 120).confidence > result.confidence, 'a bigger budget covers more of the text')
})

test(`a ${SUMMARY_MAX_CHARS.toLocaleString('en')}-character input is summarized in bounded time`, async (t) => {
  let text = ''
  for (let i = 0; text.length < SUMMARY_MAX_CHARS; i++) text += `${ARTICLE.split('. ')[i % 9] ?? ''} Paragraph ${i}, item ${i % 37}. ${i % 5 === 0 ? '\n\n' : ''}`
  text = text.slice(0, SUMMARY_MAX_CHARS)
  const started = performance.now()
  const result = summarize(text)
  const seconds = (performance.now() - started) / 1000
  t.comment(`summarized ${text.length} characters, ${countWords(text)} words, in ${seconds.toFixed(3)} s`)
  t.ok(seconds < 5, `took ${seconds.toFixed(3)} s`)
  checkContract(text, 150, result)
})

/** `words` words of prose-like text: sentences of 6 to 25 words, from a fixed LCG. */
function generatedText (words: number): string {
  let seed = 12345
  const next = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return (seed >>> 8) % n
  }
  const sentences: string[] = []
  for (let written = 0; written < words;) {
    const length = Math.min(6 + next(20), words - written)
    // Mostly rare words, as in real prose, so the term matrix is realistically sparse.
    const sentence = Array.from({ length }, () => next(4) === 0 ? VOCABULARY[next(VOCABULARY.length)] ?? '' : `term${next(5000)}`)
    sentences.push(`${sentence.join(' ')}.`)
    written += length
  }
  return sentences.join(' ')
}

test('time grows about linearly with the text: 1k, 10k and 100k words', async (t) => {
  // The best of a few runs: the least disturbed by other work on a shared machine.
  const bestSeconds = (text: string, runs: number): number => {
    let best = Infinity
    for (let i = 0; i < runs; i++) {
      const started = performance.now()
      summarize(text)
      best = Math.min(best, (performance.now() - started) / 1000)
    }
    return best
  }
  const texts = [1_000, 10_000, 100_000].map(generatedText)
  bestSeconds(texts[1] ?? '', 2)
  const [small = 0, medium = 0, large = 0] = [bestSeconds(texts[0] ?? '', 5), bestSeconds(texts[1] ?? '', 5), bestSeconds(texts[2] ?? '', 5)]
  t.comment(`1k words ${(small * 1000).toFixed(1)} ms, 10k ${(medium * 1000).toFixed(1)} ms, 100k ${(large * 1000).toFixed(1)} ms; ` +
    `ratios ${(medium / small).toFixed(1)} and ${(large / medium).toFixed(1)} per tenfold`)
  // Linear growth gives about 10 per tenfold, quadratic 100; 40 leaves room for noise without letting n² through, and
  // 10 ms more a collection or a time slice (CI, four test processes on two cores, measured 0.4 ms then 18.9 ms).
  t.ok(large < 40 * medium + 0.010, `100k words took ${(large / medium).toFixed(1)} times the 10k time`)
})
