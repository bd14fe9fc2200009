import { Type, type Static } from 'typebox'
import type { BeeSettings } from '../bee-settings.js'
import { Price, priceProblems } from '../price-setting.js'

export const WeatherSensorSettings = Type.Object({
  OPEN_METEO_URL: Type.String({
    pattern: '^https?://[^\\s]+$',
    default: 'https://api.open-meteo.com',
    description: 'Base URL of the Open-Meteo forecast API.'
  }),
  OPEN_METEO_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'Open-Meteo customer API key, sent as apikey.' })),
  WEATHER_CACHE_SECONDS: Type.Integer({
    minimum: 0,
    default: 300,
    description: 'How long one location\'s observation is reused; 0 disables the cache.'
  }),
  WEATHER_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000, description: 'Upstream time limit for one weather lookup.' }),
  PRICE_WEATHER_SENSOR: Price('weather-sensor', 0.002)
})

export type WeatherSensorSettings = Static<typeof WeatherSensorSettings>

export const weatherSensorSettings: BeeSettings<typeof WeatherSensorSettings> = {
  schema: WeatherSensorSettings,
  problems: (settings) => [
    ...URL.canParse(settings.OPEN_METEO_URL) ? [] : [`OPEN_METEO_URL: "${settings.OPEN_METEO_URL}" is not a valid URL`],
    ...priceProblems('PRICE_WEATHER_SENSOR', settings.PRICE_WEATHER_SENSOR)
  ],
  timeoutsMs: (settings) => ({ WEATHER_TIMEOUT_MS: settings.WEATHER_TIMEOUT_MS })
}
