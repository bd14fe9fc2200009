// `npm run eval`: scores the two language Bees, in-process (the same functions
// the service runs) or, with --url, through a running service's HTTP API, and
// writes everything it prints to eval/RESULTS.md with a reliability diagram per
// sentiment set. Sentiment: the reporting halves and whole sets of the VADER
// ground truth, next to VADER's published figures and VADER run here.
// Summaries: ROUGE of Apiary, ts-textrank and the lead baseline on the news
// set's held-out part and on the bundled articles.
import { existsSync } from 'node:fs'
import { join, relative } from 'node:path'
import { USAGE, parseEvalArgs, type EvalOptions } from './args.js'
import { httpSentimentAnalyzer, httpSummarizer } from './http-bees.js'
import { newsPart } from './news-set.js'
import { writeResults, type EvalResults } from './results-file.js'
import { evaluateSentiment, type SentimentAnalyzer } from './sentiment.js'
import { evaluateSummaries, type NamedSummarizer, type Summarizer } from './summaries.js'
import { tsTextRank } from './ts-textrank.js'
import { vaderBaseline } from './vader-baseline.js'

// Enough to open the connections and warm the server's JIT without spending a paid call per text twice.
const HTTP_WARM_UP = 50

async function inProcess (): Promise<{ analyze: SentimentAnalyzer, summarize: Summarizer }> {
  // Imported lazily so an HTTP run never loads the wink model.
  const { analyzeSentiment } = await import('../bees/sentiment-analyzer/analyze.js')
  const { summarize } = await import('../bees/text-summarizer/summarize.js')
  return { analyze: analyzeSentiment, summarize }
}

// Paths as a reader of RESULTS.md can follow them, not as this machine has them.
const shown = (dir: string): string => relative(process.cwd(), dir) || '.'

async function run (options: EvalOptions): Promise<void> {
  const http = options.url !== undefined
  const { analyze, summarize } = http
    ? { analyze: httpSentimentAnalyzer(options.url!, options.token ?? ''), summarize: httpSummarizer(options.url!) }
    : await inProcess()
  const results: EvalResults = {
    mode: http ? `through the HTTP API at ${options.url}, ${options.concurrency} requests in flight` : 'in-process',
    summaries: []
  }

  if (options.only.includes('sentiment')) {
    const data = options.dataDir !== undefined ? { dataDir: options.dataDir } : {}
    results.sentiment = {
      apiary: await evaluateSentiment(analyze, { ...data, ...(http ? { concurrency: options.concurrency, warmUp: HTTP_WARM_UP } : {}) }),
      vader: await evaluateSentiment(vaderBaseline, { ...data, warmUp: 0 })
    }
    // The refit needs the model's inputs, which only an in-process run has.
    if (!http) results.transfer = (await import('./sentiment-transfer.js')).evaluateTransfer(options.dataDir)
  }

  if (options.only.includes('summaries')) {
    const systems: NamedSummarizer[] = [{ name: 'Apiary', summarize }, { name: 'ts-textrank', summarize: tsTextRank }]
    if (existsSync(join(options.newsDir, 'article'))) {
      results.summaries.push({
        title: `Summaries: ROUGE F1 on the held-out part of the news set (${shown(options.newsDir)})`,
        rows: await evaluateSummaries(options.newsDir, systems, name => newsPart(name) === 'held-out')
      })
    } else {
      console.error(`No news set in ${options.newsDir}: build it with eval/news-set.ts (see eval/data/news/README.md).\n`)
    }
    results.summaries.push({
      title: `Summaries: ROUGE F1 over ${shown(options.summariesDir)}`,
      rows: await evaluateSummaries(options.summariesDir, systems)
    })
  }

  console.log(writeResults(options.resultsDir, results))
}

let options: EvalOptions
try {
  options = parseEvalArgs(process.argv.slice(2))
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`)
  process.exit(2)
}
await run(options)
