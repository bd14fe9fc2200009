// `npm run eval`: scores the two language Bees, in-process (the same functions
// the service runs) or, with --url, through a running service's HTTP API.
// One table per sentiment set (reporting halves, next to VADER's published
// numbers) and one ROUGE table: Apiary, ts-textrank and the lead baseline at
// the default budget and at the reference's length.
import { USAGE, parseEvalArgs, type EvalOptions } from './args.js'
import { httpSentimentAnalyzer, httpSummarizer } from './http-bees.js'
import { evaluateSentiment, formatSentimentTable, type SentimentAnalyzer } from './sentiment.js'
import { evaluateSummaries, formatRougeTable, type Summarizer } from './summaries.js'
import { tsTextRank } from './ts-textrank.js'

// Enough to open the connections and warm the server's JIT without spending a paid call per text twice.
const HTTP_WARM_UP = 50

async function inProcess (): Promise<{ analyze: SentimentAnalyzer, summarize: Summarizer }> {
  // Imported lazily so an HTTP run never loads the wink model.
  const { analyzeSentiment } = await import('../bees/sentiment-analyzer/analyze.js')
  const { summarize } = await import('../bees/text-summarizer/summarize.js')
  return { analyze: analyzeSentiment, summarize }
}

async function run (options: EvalOptions): Promise<void> {
  const http = options.url !== undefined
  const { analyze, summarize } = http
    ? { analyze: httpSentimentAnalyzer(options.url!, options.token ?? ''), summarize: httpSummarizer(options.url!) }
    : await inProcess()
  console.log(`# Apiary evaluation (${http ? `HTTP API at ${options.url}, ${options.concurrency} requests in flight` : 'in-process'})\n`)

  if (options.only.includes('sentiment')) {
    const rows = await evaluateSentiment(analyze, {
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(http ? { concurrency: options.concurrency, warmUp: HTTP_WARM_UP } : {})
    })
    console.log('## Sentiment: reporting halves of the VADER ground-truth sets; VADER\'s published figures in brackets\n')
    for (const row of rows) console.log(`### ${row.set}\n\n${formatSentimentTable([row])}\n`)
  }

  if (options.only.includes('summaries')) {
    const rows = await evaluateSummaries(options.summariesDir, [
      { name: 'Apiary', summarize },
      { name: 'ts-textrank', summarize: tsTextRank }
    ])
    console.log(`## Summaries: ROUGE F1 over ${options.summariesDir}\n\n${formatRougeTable(rows)}\n`)
  }
}

let options: EvalOptions
try {
  options = parseEvalArgs(process.argv.slice(2))
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`)
  process.exit(2)
}
await run(options)
