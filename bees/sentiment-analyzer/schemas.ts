import { Type } from 'typebox'
import { StringEnum, TextInput } from '../../src/core/schemas.js'
import { SENTIMENT_MAX_CHARS } from './about.js'

export const SentimentInput = Type.Object({
  text: TextInput('classify', SENTIMENT_MAX_CHARS)
}, { description: 'Text to classify.', examples: [{ text: 'I love this!' }] })

export const SentimentOutput = Type.Object({
  sentiment: StringEnum(['positive', 'negative', 'neutral'], { description: 'Overall polarity of the text.' }),
  confidence: Type.Number({ minimum: 0, maximum: 1, description: 'Calibrated probability that the label is right.' }),
  // Optional in the schema so the registry spec's required output stays sentiment and confidence; this Bee always sends it.
  score: Type.Optional(Type.Number({
    minimum: -1,
    maximum: 1,
    description: 'Signed polarity: its sign is the label (0 for neutral), its size how strongly the text leans. For ranking and correlation; not a probability.'
  }))
}, { description: 'The sentiment of the text.' })
