import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeMode = 'ok' | 'refuse' | 'hang' | 'no-current' | 'raw'

export interface FakeOpenMeteo {
  url: string
  /** Query strings of every request received, in order. */
  requests: URLSearchParams[]
  mode: FakeMode
  /** The reading served in mode ok. */
  current: { time: number, temperature_2m: number, relative_humidity_2m: number, weather_code: number }
  /** The body served, as it is, with status 200 and a JSON content type, in mode raw. */
  raw: string
  close (): Promise<void>
}

/**
 * A stand-in for api.open-meteo.com on 127.0.0.1 that speaks its real format: GET /v1/forecast with
 * latitude, longitude, current=... and timeformat=unixtime; errors as HTTP 400 `{error, reason}`.
 */
export async function startFakeOpenMeteo (): Promise<FakeOpenMeteo> {
  const hanging = new Set<ServerResponse>()
  const fake: FakeOpenMeteo = {
    url: '',
    requests: [],
    mode: 'ok',
    current: { time: Math.floor(Date.now() / 1000) - 120, temperature_2m: 13.4, relative_humidity_2m: 71, weather_code: 2 },
    raw: 'null',
    close: async () => {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    }
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fake')
    fake.requests.push(url.searchParams)
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
      response.end(JSON.stringify(body))
    }
    if (url.pathname !== '/v1/forecast') return send(404, { error: true, reason: 'Not Found' })
    const latitude = Number(url.searchParams.get('latitude'))
    const longitude = Number(url.searchParams.get('longitude'))
    if (fake.mode === 'raw') {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
      return response.end(fake.raw)
    }
    if (fake.mode === 'hang') {
      hanging.add(response)
      return
    }
    if (fake.mode === 'refuse' || !(latitude >= -90 && latitude <= 90)) {
      return send(400, { error: true, reason: `Latitude must be in range of -90 to 90°. Given: ${latitude}.` })
    }
    const base = {
      latitude,
      longitude,
      generationtime_ms: 0.03,
      utc_offset_seconds: 0,
      timezone: 'GMT',
      timezone_abbreviation: 'GMT',
      elevation: 38
    }
    if (fake.mode === 'no-current') return send(200, base)
    send(200, {
      ...base,
      current_units: { time: 'unixtime', interval: 'seconds', temperature_2m: '°C', relative_humidity_2m: '%', weather_code: 'wmo code' },
      current: { ...fake.current, interval: 900 }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return fake
}
