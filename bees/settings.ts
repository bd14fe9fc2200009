import { Type, type Static } from 'typebox'
import { SentimentAnalyzerSettings, sentimentAnalyzerSettings } from './sentiment-analyzer/settings.js'
import { WeatherSensorSettings, weatherSensorSettings } from './weather-sensor/settings.js'

/** The settings of the built-in Bees (bees/index.ts) that have any, which src/config.ts adds to the service's own. */
export const BeesSettings = Type.Object({
  ...SentimentAnalyzerSettings.properties,
  ...WeatherSensorSettings.properties
})

export type BeesSettings = Static<typeof BeesSettings>

const bees = [sentimentAnalyzerSettings, weatherSensorSettings]

/** Every Bee's problems with its settings, in the order of the Bees. */
export const beesSettingsProblems = (settings: BeesSettings): string[] => bees.flatMap((bee) => bee.problems(settings))

/** Every Bee's time limits, in ms by variable. */
export const beesTimeoutsMs = (settings: BeesSettings): Record<string, number> =>
  Object.assign({}, ...bees.map((bee) => bee.timeoutsMs(settings)))
