import { ApiError, failure } from '../../src/core/errors.js'
import { LazyAgent } from '../../src/core/lazy-agent.js'
import type { ErrorCodes } from '../../src/core/registry.js'

/** One reading of current conditions at a grid point. */
export interface Observation {
  temperature: number
  humidity: number
  weatherCode: number
  /** Start of the observation interval, in Unix seconds. */
  observedAt: number
}

export interface OpenMeteoOptions {
  baseUrl: string
  apiKey?: string | undefined
  timeoutMs: number
  cacheSeconds: number
  /** Upper bound on cached locations, so a caller walking the globe cannot grow memory without end. */
  maxEntries?: number
}

interface Current { time?: unknown, temperature_2m?: unknown, relative_humidity_2m?: unknown, weather_code?: unknown }

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Two decimals is about 1.1 km: finer than the forecast grid, so neighbours share one lookup. */
/** What a reading fails with, by status: the provider failed or sent no conditions, or did not answer in time. */
export const OPEN_METEO_ERRORS: ErrorCodes = { 502: ['WEATHER_UPSTREAM_ERROR'], 504: ['WEATHER_UPSTREAM_TIMEOUT'] }

export const roundCoordinate = (value: number) => Math.round(value * 100) / 100

/**
 * Current conditions from Open-Meteo's forecast API, with a per-location cache and one upstream
 * request per location at a time however many callers ask together.
 */
export class OpenMeteoClient {
  readonly #options: OpenMeteoOptions
  readonly #agent = new LazyAgent((undici) => new undici.Agent({ keepAliveTimeout: 10_000, connections: 32 }))
  readonly #cache = new Map<string, { observation: Observation, expiresAt: number }>()
  readonly #inFlight = new Map<string, Promise<Observation>>()

  constructor (options: OpenMeteoOptions) {
    this.#options = options
  }

  async current (latitude: number, longitude: number): Promise<Observation> {
    const lat = roundCoordinate(latitude)
    const lon = roundCoordinate(longitude)
    const key = `${lat},${lon}`
    const cached = this.#cache.get(key)
    if (cached !== undefined && cached.expiresAt > Date.now()) return cached.observation

    let pending = this.#inFlight.get(key)
    if (pending === undefined) {
      pending = this.#fetch(lat, lon).finally(() => this.#inFlight.delete(key))
      this.#inFlight.set(key, pending)
    }
    const observation = await pending
    this.#remember(key, observation)
    return observation
  }

  async close (): Promise<void> {
    await this.#agent.close()
  }

  #remember (key: string, observation: Observation): void {
    if (this.#options.cacheSeconds === 0) return
    this.#cache.delete(key)
    this.#cache.set(key, { observation, expiresAt: Date.now() + this.#options.cacheSeconds * 1000 })
    if (this.#cache.size > (this.#options.maxEntries ?? 10_000)) {
      const oldest = this.#cache.keys().next().value
      if (oldest !== undefined) this.#cache.delete(oldest)
    }
  }

  async #fetch (latitude: number, longitude: number): Promise<Observation> {
    const url = new URL('/v1/forecast', this.#options.baseUrl)
    url.searchParams.set('latitude', String(latitude))
    url.searchParams.set('longitude', String(longitude))
    url.searchParams.set('current', 'temperature_2m,relative_humidity_2m,weather_code')
    url.searchParams.set('timeformat', 'unixtime')
    if (this.#options.apiKey !== undefined) url.searchParams.set('apikey', this.#options.apiKey)

    const signal = AbortSignal.timeout(this.#options.timeoutMs)
    let body: unknown
    try {
      const { undici, agent } = await this.#agent.get()
      const response = await undici.request(url, { dispatcher: agent, signal })
      if (response.statusCode !== 200) {
        const text = await response.body.text()
        throw failure('WEATHER_UPSTREAM_ERROR',
          `The weather provider answered HTTP ${response.statusCode}${reasonOf(text)}. You were not charged; retry later.`)
      }
      body = await response.body.json()
    } catch (error) {
      if (error instanceof ApiError) throw error
      if (signal.aborted) {
        throw failure('WEATHER_UPSTREAM_TIMEOUT',
          `The weather provider did not answer within ${this.#options.timeoutMs} ms. You were not charged; retry later.`)
      }
      // The error's code only: its message names the provider's address, which is the operator's business.
      const code = (error as { code?: unknown }).code
      throw failure('WEATHER_UPSTREAM_ERROR',
        `The weather provider could not be reached${typeof code === 'string' ? ` (${code})` : ''}. You were not charged; retry later.`)
    }
    // Any JSON is possible here (null, an array, a string): only an object holding the four numbers is a reading.
    const current: Current | undefined = isObject(body) && isObject(body.current) ? body.current : undefined
    if (current === undefined || !isNumber(current.time) || !isNumber(current.temperature_2m) ||
      !isNumber(current.relative_humidity_2m) || !isNumber(current.weather_code)) {
      throw failure('WEATHER_UPSTREAM_ERROR', 'The weather provider sent an answer without current conditions. You were not charged; retry later.')
    }
    return {
      temperature: current.temperature_2m,
      humidity: current.relative_humidity_2m,
      weatherCode: current.weather_code,
      observedAt: current.time
    }
  }
}

/** Open-Meteo explains refusals as `{"error": true, "reason": "..."}`. */
function reasonOf (text: string): string {
  try {
    const reason = (JSON.parse(text) as { reason?: unknown }).reason
    return typeof reason === 'string' ? ` (${reason.slice(0, 200)})` : ''
  } catch {
    return ''
  }
}
