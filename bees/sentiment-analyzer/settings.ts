import { Type, type Static } from 'typebox'
import type { BeeSettings } from '../bee-settings.js'
import { Price, priceProblems } from '../price-setting.js'

export const SentimentAnalyzerSettings = Type.Object({
  PRICE_SENTIMENT_ANALYZER: Price('sentiment-analyzer', 0.001)
})

export type SentimentAnalyzerSettings = Static<typeof SentimentAnalyzerSettings>

export const sentimentAnalyzerSettings: BeeSettings<typeof SentimentAnalyzerSettings> = {
  schema: SentimentAnalyzerSettings,
  problems: (settings) => priceProblems('PRICE_SENTIMENT_ANALYZER', settings.PRICE_SENTIMENT_ANALYZER),
  // It makes no call: it runs in process.
  timeoutsMs: () => ({})
}
