import { Type } from 'typebox'
import { TextInput } from '../../src/core/schemas.js'
import { DEFAULT_MAX_WORDS, SUMMARY_MAX_CHARS } from './summarize.js'

export const SummaryInput = Type.Object({
  text: TextInput('summarize', SUMMARY_MAX_CHARS),
  // The text has at most SUMMARY_MAX_CHARS characters, so no larger budget can matter; the bound also
  // keeps numbers such as 1e300, which JSON Schema counts as integers, away from the summarizer.
  maxLength: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: SUMMARY_MAX_CHARS,
    default: DEFAULT_MAX_WORDS,
    description: `Most words the summary may have, 1 to ${SUMMARY_MAX_CHARS} (default ${DEFAULT_MAX_WORDS}).`
  }))
}, {
  description: 'Text to summarize and the word budget.',
  examples: [{
    text: 'Apiary keeps a registry of Bees. Each Bee declares its input and output schemas. Agents discover Bees and execute them. ' +
      'Results come back in a Honey envelope.',
    maxLength: 20
  }]
})

export const SummaryOutput = Type.Object({
  summary: Type.String({
    description: 'Sentences copied verbatim from the text, in their original order, within maxLength words; ' +
    'one space between them, a line break after one without closing punctuation (a title or a list line).'
  }),
  keyPoints: Type.Array(Type.String(), { description: 'The most central sentences of the text, most central first.' })
}, { description: 'An extractive summary.' })
