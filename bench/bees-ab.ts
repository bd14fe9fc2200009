/*
 * One build of the Bees against another, in one process: `npx tsx bench/bees-ab.ts BEFORE [AFTER] [--rounds N]`,
 * BEFORE and AFTER commits (AFTER: the working tree). Each side's bees/ is bundled by esbuild into a directory of its
 * own, and each of the Bee speed rows' texts (bench/bee-speed.ts) is timed on both, in interleaved rounds of CPU time:
 * on a shared host the ratio of two builds in one process moves far less than either build's µs from run to run.
 * What docs/performance.md reports for each change of the Bees' own work.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { ARTICLE, measure, REVIEW } from './bee-speed.js'
import { SENTENCE } from './scenarios.js'

type Analyzer = typeof import('../bees/sentiment-analyzer/analyze.js')
type Summarizer = typeof import('../bees/text-summarizer/summarize.js')
interface Bees { analyze: Analyzer['analyzeSentiment'], summarize: Summarizer['summarize'] }

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The Bees of `commit` (the working tree when undefined), bundled under `dir`. */
async function bees (commit: string | undefined, dir: string): Promise<Bees> {
  mkdirSync(dir)
  let source = join(ROOT, 'bees')
  if (commit !== undefined) {
    const archive = join(dir, 'bees.tar')
    execFileSync('git', ['archive', '-o', archive, commit, 'bees'], { cwd: ROOT })
    execFileSync('tar', ['-x', '-f', archive, '-C', dir])
    source = join(dir, 'bees')
  }
  const out = join(dir, 'out')
  await build({
    entryPoints: [join(source, 'sentiment-analyzer/analyze.ts'), join(source, 'text-summarizer/summarize.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: out,
    logLevel: 'warning'
  })
  // The analysis reads its model beside its module.
  copyFileSync(join(source, 'sentiment-analyzer/sentiment-model.json'), join(out, 'sentiment-analyzer/sentiment-model.json'))
  const { analyzeSentiment } = await import(pathToFileURL(join(out, 'sentiment-analyzer/analyze.js')).href) as Analyzer
  const { summarize } = await import(pathToFileURL(join(out, 'text-summarizer/summarize.js')).href) as Summarizer
  return { analyze: analyzeSentiment, summarize }
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '31' } } })
const [before, after] = positionals
const rounds = Number(values.rounds)
if (before === undefined || !Number.isInteger(rounds) || rounds < 1) throw new Error('usage: bees-ab.ts BEFORE [AFTER] [--rounds N]')
const dir = mkdtempSync(join(tmpdir(), 'apiary-bees-ab-'))
try {
  // The bundles import their packages from a node_modules found above them.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const old = await bees(before, join(dir, 'before'))
  const now = await bees(after, join(dir, 'after'))
  const rows = [
    { title: 'sentiment analysis, the bench\'s sentence', ours: () => now.analyze(SENTENCE), theirs: () => old.analyze(SENTENCE) },
    { title: 'sentiment analysis, the review', ours: () => now.analyze(REVIEW), theirs: () => old.analyze(REVIEW) },
    { title: 'summarizer, the article', ours: () => now.summarize(ARTICLE, 150), theirs: () => old.summarize(ARTICLE, 150) }
  ].map(({ title, ours, theirs }) => measure({ title, baselineName: before, target: 1, apiary: ours, baseline: theirs }, rounds))
  console.log([
    `${after ?? 'the working tree'} against ${before}: ${rounds} interleaved rounds, CPU time, medians (bench/bees-ab.ts)`, '',
    '| Work | Before µs | After µs | After / before |', '|---|---|---|---|',
    ...rows.map(row => `| ${row.title} | ${row.baselineUs.toFixed(2)} | ${row.apiaryUs.toFixed(2)} | ${row.ratio.toFixed(3)} |`)
  ].join('\n'))
} finally {
  rmSync(dir, { recursive: true, force: true })
}
