import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import { summarize } from '../../bees/text-summarizer/summarize.js'
import { rougeScores, rougeTokens } from '../../eval/rouge.js'
import { evaluateSummaries, formatRougeTable, leadSentences } from '../../eval/summaries.js'
import { tsTextRank } from '../../eval/ts-textrank.js'

const close = (actual: number, expected: number): boolean => Math.abs(actual - expected) < 1e-12

test('tokens are lower-cased runs of ASCII letters and digits, as in rouge-score', async (t) => {
  t.same(rougeTokens('The CAT, sat! 3.5 café'), ['the', 'cat', 'sat', '3', '5', 'caf'])
  t.same(rougeTokens('— ... !'), [])
})

// Every expected value below is counted by hand; F1 = 2PR / (P + R).
const EXAMPLES = [
  {
    // Unigrams: 5 of 6 match both ways. Bigrams: "the cat", "on the", "the mat" of 5. LCS "the cat on the mat".
    candidate: 'the cat sat on the mat',
    reference: 'The cat is on the mat.',
    expected: { rouge1: 5 / 6, rouge2: 3 / 5, rougeL: 5 / 6 }
  },
  {
    // Lin (2004), section 3: "police", "the", "gunman" match; one bigram of three; LCS "police the gunman".
    candidate: 'police kill the gunman',
    reference: 'police killed the gunman',
    expected: { rouge1: 3 / 4, rouge2: 1 / 3, rougeL: 3 / 4 }
  },
  {
    // Same words reordered: ROUGE-1 and -2 cannot tell, ROUGE-L can (LCS "the gunman").
    candidate: 'the gunman kill police',
    reference: 'police killed the gunman',
    expected: { rouge1: 3 / 4, rouge2: 1 / 3, rougeL: 2 / 4 }
  },
  {
    // Precision 1, recall 3/5 (bigrams 2/4, LCS 3/5): F1 = 0.75, 2/3, 0.75.
    candidate: 'a b c',
    reference: 'a b c d e',
    expected: { rouge1: 0.75, rouge2: 2 / 3, rougeL: 0.75 }
  },
  {
    // Counts are clipped: only one "the" of four matches, so P = 1/4, R = 1/2, F1 = 1/3; no bigram matches.
    candidate: 'the the the the',
    reference: 'the cat',
    expected: { rouge1: 1 / 3, rouge2: 0, rougeL: 1 / 3 }
  },
  {
    // One LCS over the whole text ("rougeL"), not per sentence ("rougeLsum", which would give 1): LCS "x y" of 4.
    candidate: 'z w. x y.',
    reference: 'x y. z w.',
    expected: { rouge1: 1, rouge2: 2 / 3, rougeL: 0.5 }
  },
  {
    // A single token has no bigram.
    candidate: 'flood',
    reference: 'flood barrier',
    expected: { rouge1: 2 / 3, rouge2: 0, rougeL: 2 / 3 }
  }
]

test('ROUGE-1, ROUGE-2 and ROUGE-L F1 match hand-computed values', async (t) => {
  for (const { candidate, reference, expected } of EXAMPLES) {
    const scores = rougeScores(candidate, reference)
    for (const key of ['rouge1', 'rouge2', 'rougeL'] as const) {
      t.ok(close(scores[key], expected[key]), `${key} of "${candidate}" vs "${reference}": ${scores[key]}, expected ${expected[key]}`)
    }
  }
})

test('a side without tokens scores 0 instead of throwing', async (t) => {
  const zero = { rouge1: 0, rouge2: 0, rougeL: 0 }
  t.same(rougeScores('', 'the reference'), zero)
  t.same(rougeScores('   ', 'the reference'), zero)
  t.same(rougeScores('the candidate', '!!!'), zero)
})

test('the lead baseline takes whole sentences from the start while they fit', async (t) => {
  const text = 'One two three. Four five. Six.'
  t.equal(leadSentences(text, 5), 'One two three. Four five.')
  t.equal(leadSentences(text, 4), 'One two three.', 'stops at the first sentence that does not fit')
  t.equal(leadSentences(text, 2), 'One two', 'or cuts the first sentence when even it does not fit')
})

test('a summarizer that returns the reference scores 1 at both budgets, the lead baseline less', async (t) => {
  const dir = t.testdir({
    article: { 'a.txt': 'Filler words come first here. The gist is at the end.', 'b.txt': 'Another filler opening. Then the point.' },
    summary: { 'a.txt': 'The gist is at the end.', 'b.txt': 'Then the point.' }
  })
  const references = new Map([['Filler', 'The gist is at the end.'], ['Another', 'Then the point.']])
  const rows = await evaluateSummaries(dir, [{ name: 'summarizer', summarize: async text => ({ summary: references.get(text.split(' ')[0] ?? '') ?? '' }) }])
  t.same(rows.map(row => [row.system, row.budget, row.documents]), [
    ['summarizer', '150 words', 2],
    ['lead baseline', '150 words', 2],
    ['summarizer', 'reference length', 2],
    ['lead baseline', 'reference length', 2]
  ])
  for (const row of rows.filter(row => row.system === 'summarizer')) t.same([row.rouge1, row.rouge2, row.rougeL], [1, 1, 1])
  for (const row of rows.filter(row => row.system === 'lead baseline')) t.ok(row.rouge1 < 1)
})

test('an empty reference summary scores 0 instead of stopping the run', async (t) => {
  const dir = t.testdir({ article: { 'a.txt': 'Some text here. More text.' }, summary: { 'a.txt': '' } })
  const rows = await evaluateSummaries(dir, [{ name: 'Apiary', summarize }])
  t.equal(rows.length, 4)
  for (const row of rows) t.same([row.rouge1, row.rouge2, row.rougeL], [0, 0, 0], `${row.system}, ${row.budget}`)
})

test('a missing reference summary is an error', async (t) => {
  const dir = t.testdir({ article: { 'a.txt': 'Text.' }, summary: {} })
  await t.rejects(evaluateSummaries(dir, [{ name: 'echo', summarize: text => ({ summary: text }) }]), /ENOENT/)
})

test('the bundled news pairs: the summarizer and ts-textrank against the lead baseline', async (t) => {
  const dir = fileURLToPath(new URL('../../eval/data/summaries', import.meta.url))
  const rows = await evaluateSummaries(dir, [{ name: 'Apiary', summarize }, { name: 'ts-textrank', summarize: tsTextRank }])
  t.same([...new Set(rows.map(row => row.system))], ['Apiary', 'ts-textrank', 'lead baseline'])
  const table = formatRougeTable(rows)
  t.comment(`\n${table}`)
  t.equal(table.split('\n').length, 2 + rows.length)
  t.match(table, /^\| System \| Budget \| Documents \| ROUGE-1 F1 \| ROUGE-2 F1 \| ROUGE-L F1 \|\n\| --- /)
  for (const row of rows) {
    t.equal(row.documents, 6)
    // A floor far below today's scores (about 0.33 to 0.40): it catches a broken pipeline, not a small regression.
    t.ok(row.rouge1 > 0.25 && row.rouge1 < 1, `${row.system} at ${row.budget}: ROUGE-1 ${row.rouge1}`)
  }
})
