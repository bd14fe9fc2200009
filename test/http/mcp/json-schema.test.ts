import { Ajv2020 } from 'ajv/dist/2020.js'
import { test } from 'tap'
import { SentimentInput, SentimentOutput } from '../../../bees/sentiment-analyzer/schemas.js'
import { SummaryInput, SummaryOutput } from '../../../bees/text-summarizer/schemas.js'
import { WeatherInput, WeatherOutput } from '../../../bees/weather-sensor/schemas.js'
import { addSafeFormats } from '../../../src/core/formats.js'
import { toInputSchema, toOutputSchema } from '../../../src/core/publishing/schema-conversion.js'
import { compileBodySchema } from '../../../src/core/validation.js'
import { toToolSchema } from '../../../src/http/mcp/json-schema.js'
import { draft07Input, shoutInput, shoutOutput } from '../../publishing-helper.js'

/** A publisher's draft-07 schema using what publishing rewrites the OpenAPI 3.0 way: a nullable union and examples. */
const noteInput = {
  type: 'object',
  properties: {
    text: { type: 'string', minLength: 1, examples: ['hello'] },
    note: { type: ['string', 'null'], maxLength: 5, examples: ['hi'] },
    mood: { type: ['string', 'null'], enum: ['calm', 'loud'] },
    when: { type: 'string', format: 'date-time' },
    tags: { type: 'array', items: { type: 'string', const: 'x' }, maxItems: 2 },
    level: { type: 'number', exclusiveMinimum: 0, maximum: 10 }
  },
  required: ['text']
}

/** Every Bee schema the tests know, as the registry holds it (built-ins as declared, published ones as stored). */
const schemas: Record<string, object> = {
  'sentiment input': SentimentInput,
  'sentiment output': SentimentOutput,
  'summary input': SummaryInput,
  'summary output': SummaryOutput,
  'weather input': WeatherInput,
  'weather output': WeatherOutput,
  'shout input': toInputSchema(shoutInput),
  'shout output': toOutputSchema(shoutOutput),
  'note input': toInputSchema(noteInput),
  'draft-07 input': toInputSchema(draft07Input)
}

const samples: unknown[] = [
  {}, null, 'text', [], { text: 'hi' }, { text: '' }, { text: ' ' }, { text: 5 }, { text: null },
  { text: 'hi', maxLength: 3 }, { text: 'hi', maxLength: 0 }, { text: 'hi', maxLength: 1.5 },
  { latitude: 1, longitude: 2 }, { latitude: 91, longitude: 0 }, { latitude: '1', longitude: 2 },
  { sentiment: 'positive', confidence: 0.5 }, { sentiment: 'glad', confidence: 0.5 }, { sentiment: 'neutral', confidence: 2 },
  { summary: 'x', keyPoints: [] }, { summary: 'x', keyPoints: [1] }, { temperature: 1, condition: 'c' }, { temperature: 1, condition: 'c', humidity: 101 },
  { shout: 'A', length: 1 }, { shout: 'A', length: 1.5 },
  { text: 'a', note: null }, { text: 'a', note: 'hi' }, { text: 'a', note: 'toolong' }, { text: 'a', note: 3 },
  { text: 'a', mood: 'calm' }, { text: 'a', mood: 'sad' }, { text: 'a', mood: null },
  { text: 'a', when: '2026-01-01T00:00:00Z' }, { text: 'a', when: 'yesterday' },
  { text: 'a', tags: ['x'] }, { text: 'a', tags: ['y'] }, { text: 'a', tags: ['x', 'x', 'x'] },
  { text: 'a', mode: 'loud' }, { text: 'a', mode: 'soft' },
  { text: 'a', level: 0 }, { text: 'a', level: 0.1 }, { text: 'a', level: 10 }, { text: 'a', level: 11 }
]

test('converted schemas use neither OpenAPI word and accept and refuse what the registry does, under 2020-12', async (t) => {
  const ajv2020 = addSafeFormats(new Ajv2020({ strict: true }) as never)
  for (const [name, schema] of Object.entries(schemas)) {
    const converted = toToolSchema(JSON.parse(JSON.stringify(schema)))
    const text = JSON.stringify(converted)
    t.notMatch(text, /"nullable"|"example"/, `${name}: no nullable or example left`)
    const ours = compileBodySchema(schema)
    const theirs = ajv2020.compile(converted as object)
    for (const sample of samples) {
      t.equal(theirs(structuredClone(sample)), ours(structuredClone(sample)), `${name}: ${JSON.stringify(sample)}`)
    }
  }
})

test('a nullable field becomes a type union with null, and example becomes examples', async (t) => {
  const stored = toInputSchema(noteInput)
  t.same((stored.properties as Record<string, unknown>).note, { type: 'string', nullable: true, maxLength: 5, example: 'hi' }, 'stored the OpenAPI 3.0 way')
  const converted = toToolSchema(stored) as { properties: Record<string, unknown> }
  t.same(converted.properties.note, { type: ['string', 'null'], maxLength: 5, examples: ['hi'] })
  t.same(converted.properties.mood, { type: ['string', 'null'], enum: ['calm', 'loud'] }, 'enum untouched: null stays refused, as Ajv refuses it')
  t.same(converted.properties.text, { type: 'string', minLength: 1, examples: ['hello'] })
})
