import { test } from 'tap'
import { weatherConfidence } from '../../../bees/weather-sensor/index.js'
import { balanceOf, build, createWallet, execute } from '../../helper.js'
import { startFakeOpenMeteo } from '../../fake-open-meteo.js'

async function setup (t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const upstream = await startFakeOpenMeteo()
  t.teardown(upstream.close)
  const app = await build(t, { env: { OPEN_METEO_URL: upstream.url, ...env } })
  const wallet = await createWallet(app, 1)
  const call = (payload: object) => execute(app, 'weather-sensor', payload, wallet.token)
  return { upstream, app, wallet, call }
}

test('current conditions come from Open-Meteo with the WMO code mapped to a condition', async (t) => {
  const { upstream, call } = await setup(t)
  upstream.current = { time: Math.floor(Date.now() / 1000) - 300, temperature_2m: -3.5, relative_humidity_2m: 88, weather_code: 73 }
  const response = await call({ latitude: 59.3293, longitude: 18.0686 })
  t.equal(response.statusCode, 200)
  const honey = response.json()
  t.same(honey.result, { temperature: -3.5, condition: 'moderate snow fall', humidity: 88 })
  t.ok(honey.freshness >= 300 && honey.freshness < 310, `freshness ${honey.freshness} is the observation's age in seconds`)
  t.equal(honey.confidence, 0.9)
  const query = upstream.requests[0]
  t.equal(query?.get('latitude'), '59.33', 'coordinates rounded to two decimals')
  t.equal(query?.get('longitude'), '18.07')
  t.equal(query?.get('current'), 'temperature_2m,relative_humidity_2m,weather_code')
  t.equal(query?.get('timeformat'), 'unixtime')
  t.equal(query?.get('apikey'), null, 'no key unless configured')
})

test('the API key is sent when configured', async (t) => {
  const { upstream, call } = await setup(t, { OPEN_METEO_API_KEY: 'k-123' })
  await call({ latitude: 1, longitude: 2 })
  t.equal(upstream.requests[0]?.get('apikey'), 'k-123')
})

test('one location is fetched once per cache period, neighbours within rounding share it', async (t) => {
  const { upstream, call } = await setup(t)
  await call({ latitude: 52.5201, longitude: 13.4049 })
  await call({ latitude: 52.5203, longitude: 13.4041 })
  await Promise.all([call({ latitude: 40.71, longitude: -74.01 }), call({ latitude: 40.71, longitude: -74.01 })])
  t.equal(upstream.requests.length, 2, 'two locations, two upstream requests')
})

test('WEATHER_CACHE_SECONDS=0 asks upstream every time', async (t) => {
  const { upstream, call } = await setup(t, { WEATHER_CACHE_SECONDS: '0' })
  await call({ latitude: 52.52, longitude: 13.4 })
  await call({ latitude: 52.52, longitude: 13.4 })
  t.equal(upstream.requests.length, 2)
})

test('an upstream refusal is a 502 and the caller is not charged', async (t) => {
  const { upstream, app, wallet, call } = await setup(t)
  upstream.mode = 'refuse'
  const response = await call({ latitude: 1, longitude: 2 })
  t.equal(response.statusCode, 502)
  t.match(response.json(), { error: 'Bad Gateway', code: 'WEATHER_UPSTREAM_ERROR', message: /HTTP 400 \(Latitude must be/ })
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('an upstream answer without current conditions is a 502', async (t) => {
  const { upstream, call } = await setup(t)
  upstream.mode = 'no-current'
  const response = await call({ latitude: 1, longitude: 2 })
  t.equal(response.statusCode, 502)
  t.equal(response.json().code, 'WEATHER_UPSTREAM_ERROR')
})

test('an upstream answer that is JSON but not a reading (null, array, scalar, missing fields) is a 502 and not charged', async (t) => {
  const { upstream, app, wallet, call } = await setup(t)
  upstream.mode = 'raw'
  const answers = ['null', '[]', '42', '"sunny"', 'true', '{}', '{"current":null}', '{"current":[1,2]}', '{"current":"now"}',
    '{"current":{"time":1,"temperature_2m":2}}', '{"current":{"time":1,"temperature_2m":"2","relative_humidity_2m":3,"weather_code":4}}', 'not json']
  for (const [index, raw] of answers.entries()) {
    upstream.raw = raw
    const response = await call({ latitude: index, longitude: 2 })
    t.equal(response.statusCode, 502, raw)
    t.equal(response.json().code, 'WEATHER_UPSTREAM_ERROR', raw)
  }
  t.equal(await balanceOf(app, wallet.id), 1, 'no call was charged')
})

test('an upstream that does not answer in time is a 504 and the caller is not charged', async (t) => {
  const { upstream, app, wallet, call } = await setup(t, { WEATHER_TIMEOUT_MS: '200' })
  upstream.mode = 'hang'
  const started = Date.now()
  const response = await call({ latitude: 1, longitude: 2 })
  t.equal(response.statusCode, 504)
  t.match(response.json(), { error: 'Gateway Timeout', code: 'WEATHER_UPSTREAM_TIMEOUT' })
  t.ok(Date.now() - started < 2000, 'gives up at the configured time')
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('an upstream that refuses connections is a 502', async (t) => {
  const app = await build(t, { env: { OPEN_METEO_URL: 'http://127.0.0.1:9' } })
  const wallet = await createWallet(app, 1)
  const response = await execute(app, 'weather-sensor', { latitude: 1, longitude: 2 }, wallet.token)
  t.equal(response.statusCode, 502)
  t.equal(response.json().code, 'WEATHER_UPSTREAM_ERROR')
  t.notMatch(response.json().message, /127\.0\.0\.1|:\d{2,5}\b/, 'the provider\'s address stays private')
  t.match(response.json().message, /ECONNREFUSED/, 'the reason is given')
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('confidence falls from 0.9 to 0.5 as the observation ages to three hours', async (t) => {
  t.equal(weatherConfidence(0), 0.9)
  t.equal(weatherConfidence(900), 0.9)
  t.ok(weatherConfidence(3600) < 0.9 && weatherConfidence(3600) > 0.5)
  t.equal(weatherConfidence(3 * 3600), 0.5)
  t.equal(weatherConfidence(10 * 3600), 0.5)
})
