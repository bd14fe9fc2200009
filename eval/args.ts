// Command-line options of eval/run.ts (`npm run eval -- ...`).
import { parseArgs } from 'node:util'
import { DEFAULT_NEWS_DIR } from './news-set.js'

export interface EvalOptions {
  /** Base URL of a running Apiary; absent means call the Bees' functions in-process. */
  url?: string
  /** Wallet token for the paid sentiment Bee (HTTP only). */
  token?: string
  summariesDir: string
  /** The news set (eval/data/news/README.md); its held-out part is scored when the folder exists. */
  newsDir: string
  /** Where RESULTS.md and the reliability diagrams are written. */
  resultsDir: string
  dataDir?: string
  concurrency: number
  /** Evaluate only these (default both). */
  only: ReadonlyArray<'sentiment' | 'summaries'>
}

export const USAGE = `Usage: npm run eval -- [--url http://host:port [--token TOKEN]] [--summaries DIR] [--news DIR]
                        [--data DIR] [--results DIR] [--concurrency N] [--only sentiment|summaries]
  --url          evaluate a running service through its HTTP API instead of in-process
  --token        wallet token for the paid sentiment Bee (default: $APIARY_WALLET_TOKEN)
  --summaries    folder of article/NAME.txt + summary/NAME.txt pairs (default: the bundled set)
  --news         the news set, of which the held-out part is scored (default: eval/data/news; see its README)
  --results      folder for RESULTS.md and the reliability diagrams (default: eval)
  --data         folder of the VADER ground-truth files (default: $VADER_GROUND_TRUTH_DIR or the shared copy)
  --concurrency  requests in flight over HTTP (default 16)
  --only         run one of the two evaluations`

export const DEFAULT_SUMMARIES_DIR = new URL('data/summaries/', import.meta.url).pathname
export const DEFAULT_RESULTS_DIR = new URL('./', import.meta.url).pathname
const DEFAULT_CONCURRENCY = 16

export function parseEvalArgs (argv: readonly string[], env: NodeJS.ProcessEnv = process.env): EvalOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      summaries: { type: 'string' },
      news: { type: 'string' },
      results: { type: 'string' },
      data: { type: 'string' },
      concurrency: { type: 'string' },
      only: { type: 'string' }
    }
  })
  const options: EvalOptions = {
    summariesDir: values.summaries ?? DEFAULT_SUMMARIES_DIR,
    newsDir: values.news ?? DEFAULT_NEWS_DIR,
    resultsDir: values.results ?? DEFAULT_RESULTS_DIR,
    concurrency: DEFAULT_CONCURRENCY,
    only: ['sentiment', 'summaries']
  }
  if (values.url !== undefined) options.url = baseUrl(values.url)
  const token = values.token ?? env.APIARY_WALLET_TOKEN
  if (token !== undefined && token !== '') options.token = token
  if (values.data !== undefined) options.dataDir = values.data
  if (values.concurrency !== undefined) {
    const n = Number(values.concurrency)
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--concurrency must be a positive integer, got ${values.concurrency}`)
    options.concurrency = n
  }
  if (values.only !== undefined) {
    if (values.only !== 'sentiment' && values.only !== 'summaries') throw new Error(`--only must be sentiment or summaries, got ${values.only}`)
    options.only = [values.only]
  }
  if (options.url !== undefined && options.token === undefined && options.only.includes('sentiment')) {
    throw new Error('the sentiment Bee is paid: pass --token or set APIARY_WALLET_TOKEN (or use --only summaries)')
  }
  return options
}

function baseUrl (raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error(`--url is not a URL: ${raw}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--url must be http or https, got ${raw}`)
  return url.href.replace(/\/+$/, '')
}
