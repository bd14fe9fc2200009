import type { Target } from './load.js'

/** One plain sentence: what an agent most often sends, so the door's own cost is what is measured. */
export const SENTENCE = 'The delivery was quick and the support team was genuinely helpful.'

export interface Scenario {
  title: string
  /** What the service is compared with. */
  baselineName: string
  /** The ratio service / baseline (req/s) the service should reach; null for a reference row with no goal. */
  target: number | null
  service: Target
  baseline: Target
  /**
   * How the two answers must agree before the ratio means anything: 'same' content (Honey's timestamp
   * aside), or, for two doors of one service that wrap the same result differently, 'both 2xx' (and no
   * MCP tool error).
   */
  agreement: 'same' | 'both 2xx'
}

export interface Endpoints {
  /** The service on SQLite, as `npm start` runs it. */
  service: string
  /** The same, with /metrics on (METRICS_TOKEN set), on a ledger of its own. */
  metered: string
  meteredWalletToken: string
  rawHttp: string
  /** Bare Fastify replaying the answers rawHttp replays (running the Bee first on an execute path): the framework's own ceiling. */
  bareFastify: string
  /** rawHttp that first runs the Bee's own function on the request's body: the execute rows' ceiling. */
  rawBee: string
  walletToken: string
  /** A verification token minted from walletToken's wallet. */
  verificationToken: string
  /** The execute URL of a free Bee published on `service` whose endpoint is the echo upstream (servers/upstream-echo.mjs). */
  proxiedBee: string
  /** Bare Fastify proxying a POST to the same upstream over an undici Agent (servers/bare-fastify-proxy.mjs). */
  bareProxy: string
}

/** The published Bee of the proxied-call row: its id, and the body of its calls. */
export const PROXIED_BEE_ID = 'bench-echo'
export const PROXIED_BODY = JSON.stringify({ text: SENTENCE })

const json = { 'content-type': 'application/json' }
export const SUMMARIZE_BODY = JSON.stringify({ text: SENTENCE })
export const SENTIMENT_BODY = JSON.stringify({ text: SENTENCE })
export const BEES_PATH = '/api/bees'
export const DETAIL_PATH = '/api/bees/text-summarizer'
export const SUMMARIZE_PATH = '/api/bees/text-summarizer/execute'
export const SENTIMENT_PATH = '/api/bees/sentiment-analyzer/execute'
export const WALLET_HEADER = 'x-registry-wallet-token'

/** The sentiment call of one sentence, unpaid, to a server at `base`. */
const sentiment = (base: string): Target => ({ url: base + SENTIMENT_PATH, method: 'POST', headers: json, body: SENTIMENT_BODY })

const mcpCall = (name: string, body: string) => JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: JSON.parse(body) as unknown }
})

/** A paid sentiment call to one service, paid by these wallet tokens in turn. */
export function paidCall (serviceUrl: string, walletTokens: string[]): Target {
  const [first = ''] = walletTokens
  return {
    url: serviceUrl + SENTIMENT_PATH,
    method: 'POST',
    headers: { ...json, [WALLET_HEADER]: first },
    body: SENTIMENT_BODY,
    ...(walletTokens.length > 1 ? { rotate: { header: WALLET_HEADER, values: walletTokens } } : {})
  }
}

/**
 * The paid call on PostgreSQL against a bare pg client running the same ledger statements (hold, capture)
 * at the same concurrency with as many wallets: the database's own limit.
 */
export function postgresScenario (title: string, serviceUrl: string, walletTokens: string[], barePgUrl: string): Scenario {
  return {
    title,
    baselineName: 'node:http + pg, the same hold and capture statements',
    target: 0.8,
    service: paidCall(serviceUrl, walletTokens),
    // The baseline takes its wallets in turn itself; the body is read and ignored.
    baseline: sentiment(barePgUrl),
    agreement: 'same'
  }
}

export function scenarios (endpoints: Endpoints): Scenario[] {
  const { service, metered, meteredWalletToken, rawHttp, bareFastify, rawBee, walletToken, verificationToken, proxiedBee, bareProxy } = endpoints
  const raw = 'raw node:http, same bytes'
  const summarize: Target = { url: service + SUMMARIZE_PATH, method: 'POST', headers: json, body: SUMMARIZE_BODY }
  return [
    {
      title: `discovery: GET ${BEES_PATH}`,
      baselineName: raw,
      target: 0.7,
      service: { url: service + BEES_PATH, method: 'GET' },
      baseline: { url: rawHttp + BEES_PATH, method: 'GET' },
      agreement: 'same'
    },
    {
      title: `detail: GET ${DETAIL_PATH}`,
      baselineName: raw,
      target: 0.7,
      service: { url: service + DETAIL_PATH, method: 'GET' },
      baseline: { url: rawHttp + DETAIL_PATH, method: 'GET' },
      agreement: 'same'
    },
    {
      title: `reference: bare Fastify replaying the discovery answer, GET ${BEES_PATH}`,
      baselineName: raw,
      target: null,
      service: { url: bareFastify + BEES_PATH, method: 'GET' },
      baseline: { url: rawHttp + BEES_PATH, method: 'GET' },
      agreement: 'same'
    },
    {
      // Issue 47: against a baseline that runs the same Bee function, so the row measures the service around it.
      title: 'free execute: text-summarizer, one sentence',
      baselineName: 'raw node:http running the summarizer on the body, then the same answer',
      target: 0.65,
      service: summarize,
      baseline: { ...summarize, url: rawBee + SUMMARIZE_PATH },
      agreement: 'same'
    },
    {
      title: 'reference: raw node:http running the summarizer on the body, then the same answer',
      baselineName: raw,
      target: null,
      service: { ...summarize, url: rawBee + SUMMARIZE_PATH },
      baseline: { ...summarize, url: rawHttp + SUMMARIZE_PATH },
      agreement: 'same'
    },
    {
      // Against the free execute row's own baseline: the most a Fastify service can reach on that row.
      title: 'reference: bare Fastify running the summarizer on the body it parsed, then the same answer',
      baselineName: 'raw node:http running the summarizer on the body, then the same answer',
      target: null,
      service: { ...summarize, url: bareFastify + SUMMARIZE_PATH },
      baseline: { ...summarize, url: rawBee + SUMMARIZE_PATH },
      agreement: 'same'
    },
    {
      title: 'paid execute (SQLite): sentiment-analyzer, one sentence, hold + capture',
      baselineName: 'raw node:http running the sentiment analysis on the body, then the same answer',
      target: 0.55,
      service: paidCall(service, [walletToken]),
      baseline: sentiment(rawBee),
      agreement: 'same'
    },
    {
      title: 'reference: raw node:http running the sentiment analysis on the body, then the same answer',
      baselineName: raw,
      target: null,
      service: sentiment(rawBee),
      baseline: sentiment(rawHttp),
      agreement: 'same'
    },
    {
      // Against the paid execute row's own baseline: the framework's ceiling there, with no ledger at all.
      title: 'reference: bare Fastify running the sentiment analysis on the body it parsed, then the same answer',
      baselineName: 'raw node:http running the sentiment analysis on the body, then the same answer',
      target: null,
      service: sentiment(bareFastify),
      baseline: sentiment(rawBee),
      agreement: 'same'
    },
    {
      title: 'paid execute (SQLite), paid with a verification token',
      baselineName: 'the same call paid with the wallet key',
      target: 0.8,
      service: paidCall(service, [verificationToken]),
      baseline: paidCall(service, [walletToken]),
      agreement: 'same'
    },
    {
      title: 'MCP tools/call: text-summarizer, one sentence',
      baselineName: 'HTTP execute of the same Bee',
      target: 0.8,
      service: { url: `${service}/mcp`, method: 'POST', headers: { ...json, accept: 'application/json, text/event-stream' }, body: mcpCall('text-summarizer', SUMMARIZE_BODY) },
      baseline: summarize,
      agreement: 'both 2xx'
    },
    {
      title: 'proxied call: a free published Bee, its upstream on 127.0.0.1',
      baselineName: 'bare Fastify proxying the same request to the same upstream (undici Agent)',
      target: 0.8,
      service: { url: proxiedBee, method: 'POST', headers: json, body: PROXIED_BODY },
      baseline: { url: bareProxy, method: 'POST', headers: json, body: PROXIED_BODY },
      // Apiary answers with Honey around the upstream's answer, the baseline with the answer alone.
      agreement: 'both 2xx'
    },
    {
      title: '/metrics on: paid execute (SQLite), sentiment-analyzer',
      baselineName: 'the same with /metrics off',
      target: 0.95,
      service: paidCall(metered, [meteredWalletToken]),
      baseline: paidCall(service, [walletToken]),
      agreement: 'same'
    }
  ]
}
