import type { FastifyPluginAsync } from 'fastify'
import { mountBee } from '../../src/http/execute/routes.js'
import { conditionFor } from './conditions.js'
import { OPEN_METEO_ERRORS, OpenMeteoClient } from './open-meteo.js'
import { WeatherInput, WeatherOutput } from './schemas.js'

const INTERVAL_SECONDS = 15 * 60
const STALE_SECONDS = 3 * 60 * 60

/**
 * Open-Meteo's current conditions are model values for a 15-minute interval: trusted at 0.9 within
 * the interval they describe, falling linearly to 0.5 as the reading ages to three hours.
 */
export function weatherConfidence (ageSeconds: number): number {
  if (ageSeconds <= INTERVAL_SECONDS) return 0.9
  const decay = Math.min(1, (ageSeconds - INTERVAL_SECONDS) / (STALE_SECONDS - INTERVAL_SECONDS))
  return Math.round((0.9 - 0.4 * decay) * 1000) / 1000
}

const weatherSensor: FastifyPluginAsync = async (fastify) => {
  const { config } = fastify
  const client = new OpenMeteoClient({
    baseUrl: config.OPEN_METEO_URL,
    apiKey: config.OPEN_METEO_API_KEY,
    timeoutMs: config.WEATHER_TIMEOUT_MS,
    cacheSeconds: config.WEATHER_CACHE_SECONDS
  })
  fastify.addHook('onClose', async () => { await client.close() })

  const bee = fastify.registry.register({
    id: 'weather-sensor',
    name: 'Weather Sensor',
    description: 'Current temperature (°C), relative humidity (%) and sky condition at a latitude and longitude, from ' +
      'Open-Meteo. Honey freshness: age in seconds of the observation returned (readings are cached per location). ' +
      'Honey confidence: 0.9 for a reading of the current 15-minute interval, falling to 0.5 at three hours old.',
    category: 'data',
    colony: 'core',
    version: '1.0.0',
    type: 'builtin',
    ownerId: null,
    pricing: { type: 'pay-per-use', costPerCall: config.PRICE_WEATHER_SENSOR, currency: config.PRICE_CURRENCY },
    config: {
      primaryServices: ['current-weather', 'temperature', 'humidity'],
      executionMode: 'sync',
      executionProvider: 'open-meteo'
    },
    inputSchema: WeatherInput,
    outputSchema: WeatherOutput,
    errors: OPEN_METEO_ERRORS,
    async execute ({ latitude, longitude }) {
      const observation = await client.current(latitude, longitude)
      const age = Math.max(0, Math.floor(Date.now() / 1000) - observation.observedAt)
      return {
        result: {
          temperature: observation.temperature,
          condition: conditionFor(observation.weatherCode),
          humidity: observation.humidity
        },
        confidence: weatherConfidence(age),
        freshness: age
      }
    }
  })
  mountBee(fastify, bee)
}

export default weatherSensor
