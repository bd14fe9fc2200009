import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'tap'
import { DEFAULT_RESULTS_DIR, DEFAULT_SUMMARIES_DIR, parseEvalArgs } from '../../eval/args.js'
import { DEFAULT_NEWS_DIR } from '../../eval/news-set.js'
import { mapConcurrent } from '../../eval/concurrency.js'
import { BeeHttpError, httpSentimentAnalyzer, httpSummarizer } from '../../eval/http-bees.js'
import { tsTextRank } from '../../eval/ts-textrank.js'

test('arguments: defaults are in-process, both evaluations, 16 in flight', async t => {
  t.same(parseEvalArgs([], {}), {
    summariesDir: DEFAULT_SUMMARIES_DIR, newsDir: DEFAULT_NEWS_DIR, resultsDir: DEFAULT_RESULTS_DIR, concurrency: 16, only: ['sentiment', 'summaries']
  })
})

test('arguments: --url with --token or APIARY_WALLET_TOKEN; the flag wins', async t => {
  const fromFlag = parseEvalArgs(['--url', 'http://127.0.0.1:3000/', '--token', 'abc', '--concurrency', '4'], { APIARY_WALLET_TOKEN: 'env' })
  t.equal(fromFlag.url, 'http://127.0.0.1:3000', 'trailing slash dropped')
  t.equal(fromFlag.token, 'abc')
  t.equal(fromFlag.concurrency, 4)
  t.equal(parseEvalArgs(['--url', 'http://localhost:8080'], { APIARY_WALLET_TOKEN: 'env' }).token, 'env')
  t.same(parseEvalArgs(['--summaries', '/tmp/six', '--news', '/tmp/news', '--results', '/tmp/out', '--data', '/tmp/vader', '--only', 'summaries'], {}),
    { summariesDir: '/tmp/six', newsDir: '/tmp/news', resultsDir: '/tmp/out', dataDir: '/tmp/vader', concurrency: 16, only: ['summaries'] })
})

test('arguments: mistakes are refused with a reason', async t => {
  t.throws(() => parseEvalArgs(['--url', 'http://127.0.0.1:3000'], {}), /paid: pass --token or set APIARY_WALLET_TOKEN/)
  t.ok(parseEvalArgs(['--url', 'http://127.0.0.1:3000', '--only', 'summaries'], {}), 'the free Bee needs no token')
  t.throws(() => parseEvalArgs(['--url', 'not a url', '--token', 'x'], {}), /not a URL/)
  t.throws(() => parseEvalArgs(['--url', 'ftp://host', '--token', 'x'], {}), /http or https/)
  t.throws(() => parseEvalArgs(['--concurrency', '0'], {}), /positive integer/)
  t.throws(() => parseEvalArgs(['--only', 'weather'], {}), /sentiment or summaries/)
  t.throws(() => parseEvalArgs(['--bogus'], {}))
  t.throws(() => parseEvalArgs(['stray'], {}))
})

test('mapConcurrent keeps order and never exceeds the limit', async t => {
  let inFlight = 0
  let peak = 0
  const results = await mapConcurrent(Array.from({ length: 50 }, (_, i) => i), 16, async (n) => {
    inFlight++
    peak = Math.max(peak, inFlight)
    await new Promise(resolve => setTimeout(resolve, n % 3))
    inFlight--
    return n * 2
  })
  t.same(results, Array.from({ length: 50 }, (_, i) => i * 2))
  t.equal(peak, 16)
  t.same(await mapConcurrent([], 4, async () => 1), [])
  await t.rejects(mapConcurrent([1], 0, async () => 1), RangeError)
})

interface Seen { url: string, token: string | undefined, body: unknown }

/** A stand-in for Apiary's two execute routes, on an ephemeral port of 127.0.0.1. */
async function fakeApiary (t: { teardown: (fn: () => Promise<void>) => void }): Promise<{ baseUrl: string, seen: Seen[] }> {
  const seen: Seen[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = ''
    request.on('data', chunk => { raw += chunk })
    request.on('end', () => {
      const body = JSON.parse(raw) as { text: string, maxLength?: number }
      const token = request.headers['x-registry-wallet-token'] as string | undefined
      seen.push({ url: request.url ?? '', token, body })
      const reply = (status: number, payload: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload))
      }
      if (request.url === '/api/bees/sentiment-analyzer/execute') {
        if (token !== 'good-token') return reply(402, { error: 'Payment Required', message: 'fund a wallet' })
        const sentiment = body.text.includes('love') ? 'positive' : 'negative'
        // An older service sent no score.
        const result = body.text.includes('scored') ? { sentiment, confidence: 0.9, score: 0.4 } : { sentiment, confidence: 0.9 }
        return reply(200, { beeId: 'sentiment-analyzer', timestamp: 'now', result, confidence: 0.9, freshness: 0 })
      }
      if (request.url === '/api/bees/text-summarizer/execute') {
        const summary = body.text.split(' ').slice(0, body.maxLength).join(' ')
        return reply(200, { beeId: 'text-summarizer', timestamp: 'now', result: { summary, keyPoints: [] }, confidence: 1, freshness: 0 })
      }
      reply(404, { error: 'Not Found' })
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>(resolve => server.close(() => resolve())))
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

test('HTTP client: sentiment sends the wallet token and returns label, confidence and the score if sent', async t => {
  const { baseUrl, seen } = await fakeApiary(t)
  const analyze = httpSentimentAnalyzer(baseUrl, 'good-token')
  t.same(await analyze('I love it'), { sentiment: 'positive', confidence: 0.9 })
  t.same(await analyze('I love it, scored'), { sentiment: 'positive', confidence: 0.9, score: 0.4 })
  t.same(await analyze('meh'), { sentiment: 'negative', confidence: 0.9 })
  t.same(seen[0], { url: '/api/bees/sentiment-analyzer/execute', token: 'good-token', body: { text: 'I love it' } })

  const error = await httpSentimentAnalyzer(baseUrl, 'empty-wallet')('I love it').catch((e: unknown) => e)
  t.ok(error instanceof BeeHttpError)
  t.equal((error as BeeHttpError).status, 402)
  t.match((error as BeeHttpError).message, /answered 402: .*fund a wallet/)
})

test('HTTP client: the summarizer passes the budget as maxLength and needs no token', async t => {
  const { baseUrl, seen } = await fakeApiary(t)
  t.same(await httpSummarizer(baseUrl)('one two three four', 2), { summary: 'one two' })
  t.same(seen, [{ url: '/api/bees/text-summarizer/execute', token: undefined, body: { text: 'one two three four', maxLength: 2 } }])
})

test('HTTP client: many requests through mapConcurrent all arrive', async t => {
  const { baseUrl, seen } = await fakeApiary(t)
  const analyze = httpSentimentAnalyzer(baseUrl, 'good-token')
  const texts = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `love ${i}` : `hate ${i}`))
  const results = await mapConcurrent(texts, 16, analyze)
  t.same(results.map(r => r.sentiment), texts.map((_, i) => (i % 2 === 0 ? 'positive' : 'negative')))
  t.equal(seen.length, 40)
})

test('ts-textrank baseline: best sentences within the budget, in text order', async t => {
  const text = 'Cats sleep a lot. Dogs bark at night. Cats and dogs sleep at night. The weather is fine.'
  const { summary } = tsTextRank(text, 8)
  t.ok(summary.split(/\s+/).length <= 8, summary)
  t.ok(summary.length > 0)
  t.equal(tsTextRank(text, 2).summary.split(/\s+/).length, 2, 'cut to the budget when no sentence fits')
})
