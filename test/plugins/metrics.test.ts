import { createServer } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { getMetricsFromIterator, type PromMetrics } from 'prom2javascript'
import { test } from 'tap'
import { build, createWallet, execute } from '../helper.js'
import { freePort } from '../free-port.js'
import { allTools, clients, listening } from '../http/mcp/clients.js'
import { beeBody, publish, publishingSetup } from '../publishing-helper.js'

const METRICS_TOKEN = 'metrics-token-0123456789abcdef'
const scraper = { authorization: `Bearer ${METRICS_TOKEN}` }

/**
 * Parses a scrape as Prometheus would: families by name, each sample with its labels (histograms with
 * buckets, count and sum). prom-client writes the event-loop lag of a window with no sample as `Nan`,
 * which Prometheus reads (Go's ParseFloat) and this parser cannot: such samples are left out.
 */
const parse = async (text: string): Promise<PromMetrics> =>
  await getMetricsFromIterator(text.split('\n').filter((line) => !line.endsWith(' Nan'))[Symbol.iterator]())

/** Scrapes /metrics on the service's port. */
async function scrape (app: FastifyInstance): Promise<PromMetrics> {
  const response = await app.inject({ url: '/metrics', headers: scraper })
  if (response.statusCode !== 200) throw new Error(`scrape failed: ${response.statusCode} ${response.body}`)
  return await parse(response.body)
}

type Sample = { labels: Record<string, string>, value?: number, count?: number, sum?: number }

/** The samples of one family whose labels include `labels`. */
function samples (metrics: PromMetrics, name: string, labels: Record<string, string> = {}): Sample[] {
  const family = metrics[name]
  if (family === undefined) throw new Error(`no metric ${name}`)
  return (family.data as Sample[]).filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
}

/** A counter's or gauge's value, or a histogram's count, summed over the samples that match. */
const valueOf = (metrics: PromMetrics, name: string, labels: Record<string, string> = {}) =>
  samples(metrics, name, labels).reduce((sum, sample) => sum + (sample.value ?? sample.count ?? 0), 0)

test('metrics are off unless the operator asks: no /metrics, nothing counted', async (t) => {
  const app = await build(t)
  t.equal(app.metrics, null)
  const response = await app.inject({ url: '/metrics', headers: scraper })
  t.equal(response.statusCode, 404)
  t.notOk(JSON.stringify(app.swagger()).includes('"/metrics"'), 'and the document does not list it')
})

test('with METRICS_TOKEN, /metrics on the service port asks for that token, and counts what every door did', async (t) => {
  const app = await build(t, { env: { METRICS_TOKEN } })
  t.equal((await app.inject({ url: '/metrics' })).statusCode, 401, 'no token: 401')
  const wrong = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789abcdeX' } })
  t.equal(wrong.statusCode, 401)
  t.match(wrong.json(), { code: 'UNAUTHORIZED', message: /METRICS_TOKEN/ })
  const publisherKeyIsNotEnough = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer test-admin-token-0123456789' } })
  t.equal(publisherKeyIsNotEnough.statusCode, 401, 'the admin token is not the metrics token')

  const wallet = await createWallet(app, 1)
  t.equal((await app.inject({ url: '/api/bees' })).statusCode, 200)
  t.equal((await execute(app, 'sentiment-analyzer', { text: 'Lovely.' })).statusCode, 402, 'a 402 without a wallet')
  t.equal((await execute(app, 'sentiment-analyzer', { text: 'Lovely.' }, wallet.token)).statusCode, 200, 'a sale')
  const keyed = { 'idempotency-key': 'metrics-replay-1' }
  t.equal((await execute(app, 'sentiment-analyzer', { text: 'Grim.' }, wallet.token, keyed)).statusCode, 200)
  t.equal((await execute(app, 'sentiment-analyzer', { text: 'Grim.' }, wallet.token, keyed)).statusCode, 200, 'a replay')

  const response = await app.inject({ url: '/metrics', headers: scraper })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  t.equal(response.headers['cache-control'], 'no-store', 'a credentialed answer is never cached')
  const metrics = await parse(response.body)

  const discovery = samples(metrics, 'apiary_http_request_duration_seconds', { method: 'GET', route: '/api/bees', status: '200' })
  t.equal(discovery.length, 1, 'requests by route pattern and status')
  t.equal(Number(discovery[0]?.count), 1)
  t.ok(Number(discovery[0]?.sum) > 0, 'with their latency')
  t.equal(valueOf(metrics, 'apiary_http_request_duration_seconds', { route: '/api/bees/sentiment-analyzer/execute', status: '402' }), 1)
  t.equal(valueOf(metrics, 'apiary_bee_calls_total', { bee: 'sentiment-analyzer', outcome: 'ok' }), 2, 'the replay did not run the Bee')
  t.equal(valueOf(metrics, 'apiary_bee_call_duration_seconds', { bee: 'sentiment-analyzer', remote: 'false' }), 2)
  t.equal(valueOf(metrics, 'apiary_ledger_holds_total'), 2)
  t.equal(valueOf(metrics, 'apiary_ledger_captures_total'), 2)
  t.equal(valueOf(metrics, 'apiary_payment_refusals_total', { code: 'WALLET_TOKEN_MISSING' }), 1)
  t.equal(valueOf(metrics, 'apiary_idempotent_replays_total'), 1)
  t.ok(samples(metrics, 'nodejs_eventloop_lag_seconds').length === 1, 'event-loop lag')
  t.ok(valueOf(metrics, 'nodejs_heap_size_used_bytes') > 0, 'heap')
  t.same(samples(metrics, 'apiary_preparations'), [], 'no preparation records yet')
})

test('a paid call that fails is counted as a void; a 429 from a Bee\'s own limit and from the caller\'s limit are counted', async (t) => {
  const app = await build(t, {
    env: { METRICS_TOKEN, RATE_LIMIT_WINDOW_SECONDS: '3600', RATE_LIMIT_ANONYMOUS_PER_WINDOW: '4' }
  })
  const wallet = await createWallet(app, 1)
  const failed = await execute(app, 'weather-sensor', { latitude: 1, longitude: 2 }, wallet.token)
  t.ok(failed.statusCode >= 500, 'the upstream (nothing on port 9) is down')
  for (let i = 0; i < 4; i++) await app.inject({ url: '/api/bees' })
  t.equal((await app.inject({ url: '/api/bees' })).statusCode, 429)
  const metrics = await scrape(app)
  t.equal(valueOf(metrics, 'apiary_bee_calls_total', { bee: 'weather-sensor', outcome: 'failed' }), 1)
  t.equal(valueOf(metrics, 'apiary_ledger_holds_total'), 1)
  t.equal(valueOf(metrics, 'apiary_ledger_voids_total', { reason: 'failure' }), 1)
  t.equal(valueOf(metrics, 'apiary_ledger_captures_total'), 0)
  t.equal(valueOf(metrics, 'apiary_rate_limited_total', { scope: 'caller' }), 1)
})

test('published Bees are counted together under bee="published", so the series do not grow with the catalog', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t, { METRICS_TOKEN })
  for (const id of ['shout-one', 'shout-two']) {
    await publish(app, publisher.headers, beeBody(id, fake.url))
    t.equal((await execute(app, id, { text: 'buzz' })).statusCode, 200)
  }
  await execute(app, 'text-summarizer', { text: 'Bees buzz. Honey is sweet.' })
  const metrics = await scrape(app)
  t.equal(valueOf(metrics, 'apiary_bee_calls_total', { bee: 'published', outcome: 'ok' }), 2)
  t.equal(valueOf(metrics, 'apiary_bee_call_duration_seconds', { bee: 'published', remote: 'true' }), 2)
  t.same(samples(metrics, 'apiary_bee_calls_total').map((sample) => sample.labels.bee).sort(), ['published', 'text-summarizer'], 'a built-in keeps its id')
})

test('MCP calls are counted like HTTP ones', async (t) => {
  const { app, url } = await listening(t, { env: { METRICS_TOKEN } })
  const { client } = await clients['v2 client, 2025 handshake']!(url)
  t.teardown(() => client.close())
  t.ok((await allTools(client)).length > 0)
  await client.callTool({ name: 'text-summarizer', arguments: { text: 'Bees buzz. Honey is sweet.' } })
  const metrics = await scrape(app)
  t.equal(valueOf(metrics, 'apiary_bee_calls_total', { bee: 'text-summarizer', outcome: 'ok' }), 1)
  t.ok(valueOf(metrics, 'apiary_http_request_duration_seconds', { method: 'POST', route: '/mcp' }) >= 2, 'the MCP requests themselves')
})

test('with METRICS_PORT, /metrics is served on that port of METRICS_HOST without a token, and not on the service port', async (t) => {
  const port = await freePort()
  const app = await build(t, { env: { METRICS_PORT: String(port) } })
  t.equal((await app.inject({ url: '/metrics' })).statusCode, 404, 'not on the service port')
  await app.inject({ url: '/api/bees' })
  const response = await fetch(`http://127.0.0.1:${port}/metrics`)
  t.equal(response.status, 200)
  const metrics = await parse(await response.text())
  t.equal(valueOf(metrics, 'apiary_http_request_duration_seconds', { route: '/api/bees' }), 1)
  const other = await fetch(`http://127.0.0.1:${port}/`)
  t.equal(other.status, 404)
  t.match(await other.json(), { code: 'NOT_FOUND' })
})

test('METRICS_PORT already taken stops start-up', async (t) => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => taken.close())
  const port = (taken.address() as { port: number }).port
  await t.rejects(build(t, { env: { METRICS_PORT: String(port) } }), { code: 'EADDRINUSE' })
})
