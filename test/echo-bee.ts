import { Type } from 'typebox'
import type { BeeDefinition } from '../src/core/bee.js'

const EchoInput = Type.Object({ text: Type.String({ description: 'What the Bee says back.' }) })
const EchoOutput = Type.Object({ text: Type.String({ description: 'The text it was sent.' }) })
type EchoBee = BeeDefinition<typeof EchoInput, typeof EchoOutput>

/**
 * A built-in Bee that answers the text it is sent, for the tests of what runs around a Bee (the pipeline, runs,
 * publishing); `fields` sets its price, its execution mode or what it does.
 */
export const echoBee = (fields: Partial<EchoBee> = {}): EchoBee => ({
  id: 'echo',
  name: 'Echo',
  description: 'Says it back.',
  category: 'utility',
  colony: 'test',
  type: 'builtin',
  ownerId: null,
  pricing: { type: 'free', costPerCall: 0, currency: 'USD' },
  config: { primaryServices: ['echo'], executionMode: 'sync', executionProvider: 'test' },
  inputSchema: EchoInput,
  outputSchema: EchoOutput,
  execute: async ({ text }) => ({ result: { text }, confidence: 1, freshness: 0 }),
  ...fields
})
