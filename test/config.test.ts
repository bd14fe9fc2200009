import { test } from 'tap'
import { loadConfig } from '../src/config.js'

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
