import { test } from 'tap'
import { loadConfig, x402Enabled } from '../src/config.js'

const KEY = Buffer.alloc(32, 7).toString('base64')

test('defaults fill everything that is not set', async (t) => {
  t.match(loadConfig({}), {
    PORT: 3000,
    HOST: '0.0.0.0',
    DATABASE_URL: './data/apiary.db',
    LOG_LEVEL: 'info',
    OPEN_METEO_URL: 'https://api.open-meteo.com',
    WEATHER_CACHE_SECONDS: 300,
    PRICE_CURRENCY: 'USD',
    PRICE_SENTIMENT_ANALYZER: 0.001,
    PRICE_WEATHER_SENSOR: 0.002
  })
  t.equal(loadConfig({}).ADMIN_TOKEN, undefined)
})

test('values from the environment are converted to their types', async (t) => {
  t.match(loadConfig({ PORT: '8080', WEATHER_CACHE_SECONDS: '0', PRICE_WEATHER_SENSOR: '0.5' }), {
    PORT: 8080,
    WEATHER_CACHE_SECONDS: 0,
    PRICE_WEATHER_SENSOR: 0.5
  })
})

test('a bad value stops start-up with a message naming the variable', async (t) => {
  t.throws(() => loadConfig({ PORT: 'eighty' }), /PORT/)
  t.throws(() => loadConfig({ PORT: '70000' }), /PORT/)
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL/)
  t.throws(() => loadConfig({ ADMIN_TOKEN: 'short' }), /ADMIN_TOKEN/)
  t.throws(() => loadConfig({ PRICE_SENTIMENT_ANALYZER: '0' }), /PRICE_SENTIMENT_ANALYZER/)
  t.throws(() => loadConfig({ OPEN_METEO_URL: 'not a url' }), /OPEN_METEO_URL/)
  t.throws(() => loadConfig({ PRICE_CURRENCY: 'usd' }), /PRICE_CURRENCY/)
  for (const url of ['apiary.example.com', 'ftp://apiary.example.com', 'https://apiary.example.com/?a=1', 'https://apiary.example.com/#top', 'https://[zz']) {
    t.throws(() => loadConfig({ PUBLIC_BASE_URL: url }), /PUBLIC_BASE_URL/, url)
  }
})

test('PUBLIC_BASE_URL loses its trailing slash, since links append a path to it', async (t) => {
  t.equal(loadConfig({}).PUBLIC_BASE_URL, undefined)
  t.equal(loadConfig({ PUBLIC_BASE_URL: 'https://apiary.example.com/' }).PUBLIC_BASE_URL, 'https://apiary.example.com')
  t.equal(loadConfig({ PUBLIC_BASE_URL: 'http://10.0.0.5:8080/apiary' }).PUBLIC_BASE_URL, 'http://10.0.0.5:8080/apiary')
})

test('holds outlive claims, and claims outlive every Bee timeout', async (t) => {
  t.match(loadConfig({}), { HOLD_TIMEOUT_SECONDS: 120, IDEMPOTENCY_LEASE_SECONDS: 60, HOLD_SWEEP_INTERVAL_MS: 10_000 })
  t.throws(() => loadConfig({ HOLD_TIMEOUT_SECONDS: '70' }), /HOLD_TIMEOUT_SECONDS \(70\) must exceed the longest Bee timeout \(10000 ms\) plus IDEMPOTENCY_LEASE_SECONDS/)
  t.throws(() => loadConfig({ IDEMPOTENCY_LEASE_SECONDS: '10' }), /IDEMPOTENCY_LEASE_SECONDS \(10\) must exceed the longest Bee timeout/)
  t.throws(() => loadConfig({ WEATHER_TIMEOUT_MS: '90000' }), /IDEMPOTENCY_LEASE_SECONDS/)
  t.throws(() => loadConfig({ HOLD_SWEEP_INTERVAL_MS: '0' }), /HOLD_SWEEP_INTERVAL_MS/)
  t.match(loadConfig({ IDEMPOTENCY_LEASE_SECONDS: '1', REMOTE_BEE_TIMEOUT_MS: '500', WEATHER_TIMEOUT_MS: '500', HOLD_TIMEOUT_SECONDS: '2' }),
    { HOLD_TIMEOUT_SECONDS: 2 }, 'short times for tests are fine as long as they nest')
})

test('DATABASE_URL is one of the documented forms, never a mistyped URL that would become a SQLite file', async (t) => {
  for (const url of ['./data/apiary.db', '/var/lib/apiary/ledger.db', 'ledger.db', 'sqlite:./x.db', 'sqlite:///tmp/x.db', ':memory:',
    'postgres://apiary@db.internal:5432/apiary', 'postgresql://apiary@db.internal/apiary', 'C:\\data\\apiary.db']) {
    t.equal(loadConfig({ DATABASE_URL: url, SECRETS_KEY: KEY }).DATABASE_URL, url, url)
  }
  t.throws(() => loadConfig({ DATABASE_URL: 'Postgres://apiary@db.internal:5432/apiary' }), /DATABASE_URL.*"Postgres:".*lower case/)
  for (const url of ['mysql://x@y/z', 'POSTGRESQL://a@b/c', 'file:./x.db', 'http://db.internal/apiary', 'postgres:apiary', 'redis://127.0.0.1']) {
    t.throws(() => loadConfig({ DATABASE_URL: url, SECRETS_KEY: KEY }), /^DATABASE_URL must be a file path, sqlite:PATH, :memory:, or postgres/, url)
  }
})

test('every EGRESS_ALLOWLIST entry is a host name, an IP address or a CIDR range', async (t) => {
  const good = 'bees.internal, 127.0.0.1, 10.20.0.0/16, ::1, fd00::/8, localhost, bee-1.example.com.'
  t.equal(loadConfig({ EGRESS_ALLOWLIST: good }).EGRESS_ALLOWLIST, good)
  t.throws(() => loadConfig({ EGRESS_ALLOWLIST: 'not a host!!' }), /EGRESS_ALLOWLIST: "not a host!!" is not a host name/)
  for (const entry of ['bees_internal', '-bees.example', 'http://bees.internal', '[::1]', '10.0.0.0/33', '10.0.0.0/8/8', 'bees.internal/24', '::/129', '10.0.0.0/', `${'a'.repeat(64)}.example`]) {
    t.throws(() => loadConfig({ EGRESS_ALLOWLIST: `127.0.0.1,${entry}` }), new RegExp(`EGRESS_ALLOWLIST: "${entry.replace(/[[\]/.]/g, '\\$&')}"`), entry)
  }
})

test('values with a format are checked at start: URLs parse, prices are finite with at most 6 decimals', async (t) => {
  t.throws(() => loadConfig({ OPEN_METEO_URL: 'http://[' }), /OPEN_METEO_URL/)
  t.throws(() => loadConfig({ PRICE_WEATHER_SENSOR: '0.0000001' }), /PRICE_WEATHER_SENSOR must be a finite decimal with at most 6 decimal places/)
  t.throws(() => loadConfig({ PRICE_SENTIMENT_ANALYZER: 'Infinity' }), /PRICE_SENTIMENT_ANALYZER/)
  t.throws(() => loadConfig({ PRICE_SENTIMENT_ANALYZER: '1e400' }), /PRICE_SENTIMENT_ANALYZER/)
  t.equal(loadConfig({ PRICE_WEATHER_SENSOR: '0.000001' }).PRICE_WEATHER_SENSOR, 0.000001)
})

test('x402 is off unless its three variables are set, and each is checked at start', async (t) => {
  const on = { X402_FACILITATOR_URL: 'https://facilitator.example', X402_NETWORK: 'eip155:8453', X402_PAY_TO: `0x${'ab'.repeat(20)}` }
  t.notOk(x402Enabled(loadConfig({})))
  t.ok(x402Enabled(loadConfig(on)))
  t.throws(() => loadConfig({ X402_NETWORK: 'eip155:8453' }), /x402 needs all of X402_FACILITATOR_URL, X402_NETWORK, X402_PAY_TO; missing: X402_FACILITATOR_URL, X402_PAY_TO/)
  t.throws(() => loadConfig({ ...on, X402_NETWORK: 'base' }), /X402_NETWORK/)
  t.throws(() => loadConfig({ ...on, X402_PAY_TO: '0x1234' }), /X402_PAY_TO/)
  t.throws(() => loadConfig({ ...on, X402_FACILITATOR_URL: 'ftp://x' }), /X402_FACILITATOR_URL/)
  t.throws(() => loadConfig({ ...on, X402_ASSET: 'usdc' }), /X402_ASSET/)
  t.throws(() => loadConfig({ ...on, X402_ASSET_DECIMALS: '2' }), /X402_ASSET_DECIMALS/)
  t.throws(() => loadConfig({ ...on, X402_ASSET_NAME: 'Token' }), /X402_ASSET_NAME and X402_ASSET_VERSION go together/)
  t.throws(() => loadConfig({ ...on, X402_FACILITATOR_TIMEOUT_MS: '30000' }), /must exceed an x402 call/)
})

test('rate limits: per-caller limits per window (0 turns one off), REDIS_URL and the built-in Bees\' limits are checked', async (t) => {
  t.match(loadConfig({}), {
    RATE_LIMIT_WINDOW_SECONDS: 60,
    RATE_LIMIT_ANONYMOUS_PER_WINDOW: 300,
    RATE_LIMIT_WALLET_PER_WINDOW: 1200,
    RATE_LIMIT_PUBLISHER_PER_WINDOW: 600,
    RATE_LIMIT_BUILTIN_BEES: ''
  })
  t.equal(loadConfig({}).REDIS_URL, undefined)
  t.equal(loadConfig({ RATE_LIMIT_WALLET_PER_WINDOW: '0' }).RATE_LIMIT_WALLET_PER_WINDOW, 0)
  for (const url of ['redis://127.0.0.1:6379', 'rediss://:pass@cache.internal:6380/2']) t.equal(loadConfig({ REDIS_URL: url }).REDIS_URL, url)
  for (const url of ['127.0.0.1:6379', 'http://cache:6379', 'redis://']) t.throws(() => loadConfig({ REDIS_URL: url }), /REDIS_URL/, url)
  t.throws(() => loadConfig({ REDIS_URL: 'redis://:pass@[bad' }), { message: /^REDIS_URL is not a valid/ })
  t.notMatch(String((() => { try { loadConfig({ REDIS_URL: 'redis://:hunter2@[bad' }) } catch (error) { return error } })()), /hunter2/, 'no password in the message')
  t.throws(() => loadConfig({ RATE_LIMIT_ANONYMOUS_PER_WINDOW: '-1' }), /RATE_LIMIT_ANONYMOUS_PER_WINDOW/)
  t.throws(() => loadConfig({ RATE_LIMIT_WINDOW_SECONDS: '0' }), /RATE_LIMIT_WINDOW_SECONDS/)
  t.equal(loadConfig({ RATE_LIMIT_BUILTIN_BEES: ' weather-sensor = 100 , text-summarizer=5' }).RATE_LIMIT_BUILTIN_BEES, ' weather-sensor = 100 , text-summarizer=5')
  for (const [value, problem] of [['weather-sensor', /"weather-sensor" is not id=calls/], ['weather-sensor=0', /calls per minute from 1 to 1000000/],
    ['weather-sensor=1.5', /not id=calls/], ['Weather=5', /not id=calls/], ['a=1=2', /not id=calls/], ['a=1,a=2', /a is listed twice/]] as const) {
    t.throws(() => loadConfig({ RATE_LIMIT_BUILTIN_BEES: value }), { message: new RegExp(`^RATE_LIMIT_BUILTIN_BEES: .*${problem.source}`) }, value)
  }
})

test('SUBSCRIPTION_BUILTIN_BEES: a JSON object from Bee id to a valid plan, or start-up stops naming it', async (t) => {
  const plan = { periodPrice: 5, periodDays: 30, includedCalls: 1000, overagePrice: null }
  t.equal(loadConfig({}).SUBSCRIPTION_BUILTIN_BEES, '')
  t.ok(loadConfig({ SUBSCRIPTION_BUILTIN_BEES: JSON.stringify({ 'sentiment-analyzer': plan }) }))
  for (const [value, problem] of [
    ['{', /is not JSON/], ['[]', /must be a JSON object/], [JSON.stringify({ Bad_Id: plan }), /"Bad_Id" is not a Bee id/],
    [JSON.stringify({ 'weather-sensor': { ...plan, periodDays: 0 } }), /weather-sensor: the plan \/periodDays must be >= 1/],
    [JSON.stringify({ 'weather-sensor': { ...plan, extra: 1 } }), /must NOT have additional properties/],
    [JSON.stringify({ 'weather-sensor': { ...plan, periodPrice: 0.0000001 } }), /must be >= 0.000001/],
    [JSON.stringify({ 'weather-sensor': { ...plan, overagePrice: 0.0000015 } }), /at most 6 decimal places/]
  ] as const) {
    t.throws(() => loadConfig({ SUBSCRIPTION_BUILTIN_BEES: value }), { message: new RegExp(`^SUBSCRIPTION_BUILTIN_BEES: .*${problem.source}`) }, value)
  }
})

test('Bee health: a window of 1 to 1440 minutes, synced every 100 ms to 60 s', async (t) => {
  t.match(loadConfig({}), { HEALTH_WINDOW_MINUTES: 60, HEALTH_SYNC_MS: 5000 })
  t.match(loadConfig({ HEALTH_WINDOW_MINUTES: '1440', HEALTH_SYNC_MS: '100' }), { HEALTH_WINDOW_MINUTES: 1440, HEALTH_SYNC_MS: 100 })
  for (const value of ['0', '1441', '1.5', 'an hour']) t.throws(() => loadConfig({ HEALTH_WINDOW_MINUTES: value }), /HEALTH_WINDOW_MINUTES/, value)
  for (const value of ['99', '60001']) t.throws(() => loadConfig({ HEALTH_SYNC_MS: value }), /HEALTH_SYNC_MS/, value)
})
