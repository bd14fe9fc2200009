// The Bees give the answers they gave at d63bc72, before issue 47's second round, on every 50th text of every eval
// set and of the generated sets: the digests test/fixtures/bees-at-main/make.ts wrote from that commit's code.
// test/eval/bees-at-main.test.ts takes every text.
import { readFileSync } from 'node:fs'
import { test } from 'tap'
import { analyzeSentiment } from '../../bees/sentiment-analyzer/analyze.js'
import { summarize } from '../../bees/text-summarizer/summarize.js'
import { digests } from '../fixtures/bees-at-main/outputs.js'

const frozen = JSON.parse(readFileSync(new URL('../fixtures/bees-at-main/digests.json', import.meta.url), 'utf8')) as { sampled: Record<string, string> }

test('a sample of every set gets the analyses and summaries it got at d63bc72', async t => {
  t.same(digests({ analyzeSentiment, summarize }, true), frozen.sampled)
})
