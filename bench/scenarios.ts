import type { Target } from './load.js'

/** About 100 words of plain English prose, with a budget the summary must cut to (so it really selects sentences). */
const ARTICLE = 'Honeybees live in colonies of tens of thousands of workers, a single queen and a few hundred drones. ' +
  'Workers change jobs as they age: young bees clean cells and feed larvae, older ones build comb and guard the ' +
  'entrance, and the oldest fly out to forage for nectar and pollen. A forager that finds a rich patch of flowers ' +
  'returns to the hive and performs a waggle dance. The angle of the dance tells the other bees the direction of ' +
  'the flowers relative to the sun, and its length tells them the distance. In winter the colony clusters ' +
  'together and shivers to keep the queen warm.'
const SUMMARY_WORDS = 50
const SENTENCE = 'The delivery was quick and the support team was genuinely helpful.'

export interface Scenario {
  title: string
  /** What the service is compared with. */
  baselineName: string
  /** The ratio service / baseline (req/s) the service should reach. */
  target: number
  service: Target
  baseline: Target
}

export interface Endpoints {
  service: string
  rawHttp: string
  summarizer: string
  sentiment: string
  walletToken: string
}

const json = { 'content-type': 'application/json' }
const summarizeBody = JSON.stringify({ text: ARTICLE, maxLength: SUMMARY_WORDS })
const sentimentBody = JSON.stringify({ text: SENTENCE })
export const BEES_PATH = '/api/bees'
export const DETAIL_PATH = '/api/bees/text-summarizer'
const SUMMARIZE_PATH = '/api/bees/text-summarizer/execute'
const SENTIMENT_PATH = '/api/bees/sentiment-analyzer/execute'
export const WALLET_HEADER = 'x-registry-wallet-token'

/**
 * The paid call against one service instance, against bare Fastify running the same analysis for
 * free. With several wallet tokens, the calls take turns among the wallets.
 */
export function paidScenario (title: string, serviceUrl: string, walletTokens: string[], sentimentUrl: string): Scenario {
  const [first = ''] = walletTokens
  return {
    title,
    baselineName: 'bare Fastify + analyzeSentiment, no payment',
    target: 0.8,
    service: {
      url: serviceUrl + SENTIMENT_PATH,
      method: 'POST',
      headers: { ...json, [WALLET_HEADER]: first },
      body: sentimentBody,
      ...(walletTokens.length > 1 ? { rotate: { header: WALLET_HEADER, values: walletTokens } } : {})
    },
    baseline: { url: sentimentUrl + SENTIMENT_PATH, method: 'POST', headers: json, body: sentimentBody }
  }
}

export function scenarios ({ service, rawHttp, summarizer, sentiment, walletToken }: Endpoints): Scenario[] {
  return [
    {
      title: `discovery: GET ${BEES_PATH}`,
      baselineName: 'raw node:http, same bytes',
      target: 0.9,
      service: { url: service + BEES_PATH, method: 'GET' },
      baseline: { url: rawHttp + BEES_PATH, method: 'GET' }
    },
    {
      title: `detail: GET ${DETAIL_PATH}`,
      baselineName: 'raw node:http, same bytes',
      target: 0.9,
      service: { url: service + DETAIL_PATH, method: 'GET' },
      baseline: { url: rawHttp + DETAIL_PATH, method: 'GET' }
    },
    {
      title: 'free execute: text-summarizer, ~100 words',
      baselineName: 'bare Fastify + summarize',
      target: 0.9,
      service: { url: service + SUMMARIZE_PATH, method: 'POST', headers: json, body: summarizeBody },
      baseline: { url: summarizer + SUMMARIZE_PATH, method: 'POST', headers: json, body: summarizeBody }
    },
    paidScenario('paid execute (SQLite): sentiment-analyzer, one sentence', service, [walletToken], sentiment)
  ]
}
