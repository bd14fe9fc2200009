import { Type } from 'typebox'
import { TextInput } from '../../src/schemas.js'
import { DEFAULT_MAX_WORDS, SUMMARY_MAX_CHARS } from './summarize.js'

export const SummaryInput = Type.Object({
  text: TextInput('summarize', SUMMARY_MAX_CHARS),
  maxLength: Type.Optional(Type.Integer({
    minimum: 1,
    default: DEFAULT_MAX_WORDS,
    description: `Most words the summary may have (default ${DEFAULT_MAX_WORDS}).`
  }))
}, { description: 'Text to summarize and the word budget.' })

export const SummaryOutput = Type.Object({
  summary: Type.String({ description: 'Sentences copied verbatim from the text, in their original order, within maxLength words.' }),
  keyPoints: Type.Array(Type.String(), { description: 'The most central sentences of the text, most central first.' })
}, { description: 'An extractive summary.' })
