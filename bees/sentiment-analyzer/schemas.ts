import { Type } from 'typebox'
import { StringEnum, TextInput } from '../../src/core/schemas.js'
import { SENTIMENT_MAX_CHARS } from './analyze.js'

export const SentimentInput = Type.Object({
  text: TextInput('classify', SENTIMENT_MAX_CHARS)
}, { description: 'Text to classify.', examples: [{ text: 'I love this!' }] })

export const SentimentOutput = Type.Object({
  sentiment: StringEnum(['positive', 'negative', 'neutral'], { description: 'Overall polarity of the text.' }),
  confidence: Type.Number({ minimum: 0, maximum: 1, description: 'Calibrated probability that the label is right.' })
}, { description: 'The sentiment of the text.' })
