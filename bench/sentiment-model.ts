import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadSet, SENTIMENT_SETS } from '../eval/datasets.js'
import { loadUnseenSets } from '../eval/unseen-sets.js'
import type { SentimentAnalysis } from '../bees/sentiment-analyzer/model.js'
import { median } from './stats.js'

/**
 * Two builds of the sentiment Bee side by side (issue 28), each given as a bundle directory (dist/bundle of `npm run
 * build`; build the other commit in a worktree of its own):
 * - `same A B`: every eval text (the four VADER sets, the three UCI sets, the Reddit comments, the bundled articles)
 *   through both builds' analyzeSentiment; fails unless every label, score and confidence is identical.
 * - `memory A B`: for each build, a fresh `node --expose-gc` loads the Bee's two chunks in the order the service's
 *   warm-up does (signals, then analyze) and prints V8's heap and the array buffers after a full GC at each step.
 * - `throughput A B [ROUNDS]`: both builds in one process, the 23,703 VADER texts a round each, the order swapped every
 *   round so that a burst of load on a shared machine hits both; the median texts/s of each.
 * `tsx bench/sentiment-model.ts same|memory|throughput A B [ROUNDS]`
 */
type Analyze = (text: string) => SentimentAnalysis

const [mode, ...rest] = process.argv.slice(2)
const builds = rest.slice(0, 2).map(dir => resolve(dir))
const rounds = Number(rest[2] ?? 7)
if (!['same', 'memory', 'throughput'].includes(mode ?? '') || builds.length !== 2) {
  console.error('usage: tsx bench/sentiment-model.ts same|memory|throughput BUNDLE_DIR_A BUNDLE_DIR_B [ROUNDS]')
  process.exit(2)
}

/**
 * The module of one of the Bee's dynamic imports (bees/sentiment-analyzer/index.ts), signals or analyze: a chunk of a
 * bundle built before the bundle became one CommonJS file (2026-11-30), else tsc's output beside the bundle (dist/bees),
 * the same sources compiled one module a file.
 */
function chunk (bundle: string, name: 'signals' | 'analyze'): string {
  const dir = join(bundle, 'chunks')
  if (!existsSync(dir)) return join(bundle, '..', 'bees', 'sentiment-analyzer', `${name}.js`)
  const found = readdirSync(dir).filter(file => file.startsWith(`${name}-`) && file.endsWith('.js'))
  if (found.length !== 1) throw new Error(`${dir} has ${found.length} ${name}-*.js chunks`)
  return join(dir, found[0]!)
}

async function analyzer (bundle: string): Promise<Analyze> {
  return (await import(pathToFileURL(chunk(bundle, 'analyze')).href) as { analyzeSentiment: Analyze }).analyzeSentiment
}

function vaderTexts (): string[] {
  return SENTIMENT_SETS.flatMap(set => loadSet(set).map(item => item.text))
}

function evalTexts (): string[] {
  const articles = new URL('../eval/data/summaries/article/', import.meta.url)
  return [
    ...vaderTexts(),
    ...loadUnseenSets().flatMap(set => set.items.map(item => item.text)),
    ...readdirSync(articles).map(name => readFileSync(new URL(name, articles), 'utf8'))
  ]
}

async function same (): Promise<void> {
  const [a, b] = await Promise.all(builds.map(analyzer))
  const texts = evalTexts()
  let differ = 0
  for (const text of texts) {
    const left = a!(text)
    const right = b!(text)
    if (left.sentiment === right.sentiment && Object.is(left.score, right.score) && Object.is(left.confidence, right.confidence)) continue
    differ += 1
    if (differ <= 10) console.log(JSON.stringify({ text: text.slice(0, 80), a: left, b: right }))
  }
  console.log(`${texts.length} texts, ${differ} with a different label, score or confidence`)
  if (differ > 0) process.exitCode = 1
}

// Run in a fresh process, so that neither build nor this script's own modules are on the heap being measured.
const MEMORY_PROBE = `
const mb = (bytes) => (bytes / 1048576).toFixed(2)
const settled = () => { for (let i = 0; i < 3; i++) globalThis.gc(); return process.memoryUsage() }
const steps = [['empty', settled()]]
for (const [name, file] of [['signals', process.argv[1]], ['analyze', process.argv[2]]]) {
  globalThis[name] = await import(file)
  steps.push([name, settled()])
}
console.log(steps.map(([name, m]) => name + ': heap ' + mb(m.heapUsed) + ', array buffers ' + mb(m.arrayBuffers) + ', RSS ' + mb(m.rss)).join('; '))
`

function memory (): void {
  for (const bundle of builds) {
    const files = (['signals', 'analyze'] as const).map(name => pathToFileURL(chunk(bundle, name)).href)
    console.log(`${bundle} (MB after a full GC): ` +
      execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', MEMORY_PROBE, ...files], { encoding: 'utf8' }).trim())
  }
}

async function throughput (): Promise<void> {
  const analyzers = await Promise.all(builds.map(analyzer))
  const texts = vaderTexts()
  // A first pass each, so both are compiled by the optimizing tier before anything is timed.
  for (const analyze of analyzers) for (const text of texts) analyze(text)
  const rates: number[][] = [[], []]
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const start = process.hrtime.bigint()
      for (const text of texts) analyzers[side]!(text)
      rates[side]!.push(texts.length / (Number(process.hrtime.bigint() - start) / 1e9))
    }
  }
  const ratios = rates[1]!.map((rate, round) => rate / rates[0]![round]!)
  for (const [side, bundle] of builds.entries()) {
    console.log(`${bundle}: median ${median(rates[side]!).toFixed(0)} texts/s (rounds ${rates[side]!.map(rate => rate.toFixed(0)).join(', ')})`)
  }
  console.log(`B/A per round: median ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}), ${rounds} rounds of ${texts.length} texts`)
}

if (mode === 'same') await same()
else if (mode === 'memory') memory()
else await throughput()
