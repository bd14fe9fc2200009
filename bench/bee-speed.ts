/*
 * The Bees' own work against the libraries they are judged against (issue 47): the built sentiment analysis against
 * vader-sentiment's polarity_scores alone, and the built summarizer against ts-textrank (as eval/ts-textrank.ts runs
 * it, in the same word budget), on the same text, timed in this one process so that the host cancels out of the ratio.
 * Each round times a batch of one side, then of the other (which goes first alternates), each batch about BATCH_MS;
 * a row's ratio is the median of the rounds' ratios, its µs the medians of each side's rounds. A batch's time is the
 * process's CPU time (process.cpuUsage), not the wall clock: on a shared host another process's turn on the core
 * would land in one side's batch. No server runs.
 */
import { readFileSync } from 'node:fs'
import vader from 'vader-sentiment'
import { tsTextRank } from '../eval/ts-textrank.js'
import { SENTENCE } from './scenarios.js'
import { median } from './stats.js'

/** A 61-word review, written for this row: several sentences, a contrast and a negation, as reviews have them. */
export const REVIEW = 'I ordered the blender after my old one died, and honestly it is better than I expected. It crushes ice in ' +
  'seconds, the jar is easy to clean, and it is quieter than most. My only complaint is the lid, which is stiff and hard ' +
  'to open. Still, for the price I would not hesitate to recommend it to a friend.'

/** The opening of a bundled news article, up to the paragraph that brings it past 270 words (276). */
const ARTICLE_FILE = new URL('../eval/data/summaries/article/battery-plant.txt', import.meta.url)

function articleOpening (text: string, words: number): string {
  const kept: string[] = []
  let count = 0
  for (const paragraph of text.split('\n\n')) {
    if (count >= words) break
    kept.push(paragraph)
    count += paragraph.split(/\s+/).filter(word => word !== '').length
  }
  return kept.join('\n\n')
}

export interface BeeSpeedRow {
  title: string
  baselineName: string
  /** The ratio (Apiary's µs / the baseline's) to stay at or under. */
  target: number
  apiaryUs: number
  baselineUs: number
  ratio: number
  rounds: number
}

export interface Pair { title: string, baselineName: string, target: number, apiary: () => unknown, baseline: () => unknown }

export const BATCH_MS = 25
const WARM_UP_MS = 400

/**
 * Calls per batch so that one batch of `work` takes about BATCH_MS of CPU time. CPU time, as the batches are timed: by
 * the wall clock, a turn of another process on the core during the sizing made every batch of that side a fraction
 * as long, and on a loaded host the rows' µs came out two to four times the same functions' in batches of fixed size.
 */
function batchSize (work: () => unknown): number {
  let calls = 1
  for (;;) {
    const elapsedMs = microsPerCall(work, calls) * calls / 1000
    if (elapsedMs >= BATCH_MS / 4) return Math.max(1, Math.round(calls * BATCH_MS / elapsedMs))
    calls *= 2
  }
}

function microsPerCall (work: () => unknown, calls: number): number {
  const started = process.cpuUsage()
  for (let i = 0; i < calls; i++) work()
  const { user, system } = process.cpuUsage(started)
  return (user + system) / calls
}

function warmUp (work: () => unknown): void {
  const until = performance.now() + WARM_UP_MS
  while (performance.now() < until) work()
}

export function measure ({ title, baselineName, target, apiary, baseline }: Pair, rounds: number): BeeSpeedRow {
  warmUp(apiary)
  warmUp(baseline)
  const apiaryCalls = batchSize(apiary)
  const baselineCalls = batchSize(baseline)
  const apiaryUs: number[] = []
  const baselineUs: number[] = []
  const ratios: number[] = []
  for (let round = 0; round < rounds; round++) {
    let ours: number
    let theirs: number
    if (round % 2 === 0) {
      ours = microsPerCall(apiary, apiaryCalls)
      theirs = microsPerCall(baseline, baselineCalls)
    } else {
      theirs = microsPerCall(baseline, baselineCalls)
      ours = microsPerCall(apiary, apiaryCalls)
    }
    apiaryUs.push(ours)
    baselineUs.push(theirs)
    ratios.push(ours / theirs)
  }
  return { title, baselineName, target, apiaryUs: median(apiaryUs), baselineUs: median(baselineUs), ratio: median(ratios), rounds }
}

export const ARTICLE = articleOpening(readFileSync(ARTICLE_FILE, 'utf8'), 270)
const wordsOf = (text: string): number => text.split(/\s+/).filter(word => word !== '').length

/** Titles of the rows, for --only; each starts with "Bee speed". */
const BEE_SPEED_TITLES = {
  sentence: 'Bee speed: sentiment analysis, the bench\'s sentence',
  review: `Bee speed: sentiment analysis, a ${wordsOf(REVIEW)}-word review`,
  article: `Bee speed: summarizer, a ${wordsOf(ARTICLE)}-word news article`
} as const

type Analyzer = typeof import('../bees/sentiment-analyzer/analyze.js')
type Summarizer = typeof import('../bees/text-summarizer/summarize.js')
const built = (file: string): string => new URL(`../dist/bees/${file}`, import.meta.url).href

/** The rows `selected` keeps, measured in turn; the Bees come from dist/ (`npm run bench` builds it first). */
export async function beeSpeed (selected: (title: string) => boolean, rounds: number): Promise<BeeSpeedRow[]> {
  const { analyzeSentiment } = await import(built('sentiment-analyzer/analyze.js')) as Analyzer
  const { summarize, DEFAULT_MAX_WORDS } = await import(built('text-summarizer/summarize.js')) as Summarizer
  const polarity = vader.SentimentIntensityAnalyzer.polarity_scores
  const pairs: Pair[] = [
    { title: BEE_SPEED_TITLES.sentence, text: SENTENCE },
    { title: BEE_SPEED_TITLES.review, text: REVIEW }
  ].map(({ title, text }) => ({
    title,
    baselineName: 'vader-sentiment\'s polarity_scores alone, same text',
    target: 0.15,
    apiary: () => analyzeSentiment(text),
    baseline: () => polarity(text)
  }))
  pairs.push({
    title: BEE_SPEED_TITLES.article,
    baselineName: `ts-textrank, same text and budget (${DEFAULT_MAX_WORDS} words)`,
    target: 0.10,
    apiary: () => summarize(ARTICLE, DEFAULT_MAX_WORDS),
    baseline: () => tsTextRank(ARTICLE, DEFAULT_MAX_WORDS)
  })
  const rows: BeeSpeedRow[] = []
  for (const pair of pairs.filter(({ title }) => selected(title))) {
    console.error(`… ${pair.title}`)
    rows.push(measure(pair, rounds))
  }
  return rows
}
