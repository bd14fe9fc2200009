import type { CallToolResult, Tool } from '@modelcontextprotocol/server'
import { Type, type Static } from 'typebox'
import { bodyOf, validationFailed } from '../../core/errors.js'
import type { HealthBoard } from '../../core/health/board.js'
import { byReliability, meetsSuccessRate } from '../../core/health/reliability.js'
import type { RegisteredBee, Registry } from '../../core/registry.js'
import { BeeHealth, BeeId, Pricing, StringEnum } from '../../core/schemas.js'
import { compileBodySchema } from '../../core/validation.js'
import { toolError, type Era } from './errors.js'
import { toToolSchema } from './json-schema.js'

export const FIND_BEES = 'find_bees'
const MAX_LIMIT = 50

const FindBeesInput = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 200, description: 'Words to look for in the Bee\'s id, name, category and description; the best matches come first. Leave out to list by id.' })),
  category: Type.Optional(Type.String({ maxLength: 100, description: 'Only Bees of this category (reasoning, data, utility, …).' })),
  maxPrice: Type.Optional(Type.Number({ minimum: 0, description: 'Only Bees whose costPerCall is at most this, in the Bee\'s currency.' })),
  freeOnly: Type.Optional(Type.Boolean({ description: 'Only free Bees.' })),
  minSuccessRate: Type.Optional(Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'Only Bees whose recent success rate (health.successRate) is at least this, 0 to 1; Bees not run lately have none and are left out.'
  })),
  sort: Type.Optional(StringEnum(['relevance', 'reliability'], {
    default: 'relevance',
    description: 'relevance: the best match first. reliability: the highest recent success rate first, then the lowest p95 latency, ' +
      'Bees not run lately last (equals by relevance).'
  })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 10, description: `How many Bees to return, 1 to ${MAX_LIMIT}.` }))
}, { description: 'What to look for.' })
type FindBeesInput = Static<typeof FindBeesInput>

const FoundBee = Type.Object({
  id: BeeId,
  name: Type.String({ description: 'Human-readable name; the tool\'s title.' }),
  description: Type.String({ description: 'What the Bee does, and what its confidence and freshness mean.' }),
  category: Type.String({ description: 'Functional area.' }),
  pricing: Pricing,
  relevance: Type.Number({ minimum: 0, description: 'How well the Bee matches the query (higher is better); 0 without a query.' }),
  health: BeeHealth,
  inputSchema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the tool\'s arguments.' }),
  outputSchema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the tool\'s structuredContent.' })
}, { description: 'A Bee you can call as the tool named by its id.' })

const FindBeesOutput = Type.Object({
  bees: Type.Array(FoundBee, { description: 'Matching active Bees, best match first (by id without a query), or the most reliable first.' })
}, { description: 'Bees matching the search.' })
type FindBeesOutput = Static<typeof FindBeesOutput>

const validateInput = compileBodySchema(FindBeesInput)

export const findBeesTool: Tool = {
  name: FIND_BEES,
  title: 'Find Bees',
  description: 'Searches the Apiary catalog and returns matching Bees with their schemas, prices and recent health (success rate, ' +
    'latency, output conformance), best match or most reliable first. ' +
    'Search here first, then call a Bee by its id: every Bee is also a tool of its own.',
  inputSchema: toToolSchema(FindBeesInput as never) as Tool['inputSchema'],
  outputSchema: toToolSchema(FindBeesOutput as never) as Tool['inputSchema'],
  annotations: { title: 'Find Bees', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
}

/** Words of the query, lowercased; punctuation separates them like spaces. */
const termsOf = (query: string) => query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((term) => term.length > 0)

/**
 * How well a Bee matches the query: the id weighs most (the whole query being the id most of all), then
 * the name, the category and the description, for each word of the query. A Bee that matches no word
 * scores 0.
 */
function relevance (bee: RegisteredBee, query: string, terms: string[]): number {
  const { id, name, category, description } = bee.record
  const [lowName, lowCategory, lowDescription] = [name.toLowerCase(), category.toLowerCase(), description.toLowerCase()]
  let score = id === query ? 8 : 0
  for (const term of terms) {
    if (id.includes(term)) score += 4
    if (lowName.includes(term)) score += 3
    if (lowCategory === term) score += 2
    if (lowDescription.includes(term)) score += 1
  }
  return score
}

function matches (bee: RegisteredBee, input: FindBeesInput, board: HealthBoard): boolean {
  const { record } = bee
  if (record.status !== 'active') return false
  if (input.minSuccessRate !== undefined && !meetsSuccessRate(board.of(record.id), input.minSuccessRate)) return false
  if (input.category !== undefined && record.category.toLowerCase() !== input.category.toLowerCase()) return false
  if (input.freeOnly === true && record.pricing.type !== 'free') return false
  if (input.maxPrice !== undefined && record.pricing.costPerCall > input.maxPrice) return false
  return true
}

/** find_bees: arguments that fail validation are a tool error the model can correct, as for any Bee. */
export function findBees (registry: Registry, board: HealthBoard, args: unknown, era: Era): CallToolResult {
  // Validation fills in defaults; the caller's object stays as it was sent.
  const input = structuredClone(args ?? {})
  if (!validateInput(input)) return toolError(bodyOf(validationFailed(validateInput.errors ?? [], 'input', 'input')), era)
  const found = search(registry, board, input as FindBeesInput)
  return { content: [{ type: 'text', text: JSON.stringify(found) }], structuredContent: found }
}

function search (registry: Registry, board: HealthBoard, input: FindBeesInput): FindBeesOutput {
  const query = (input.query ?? '').trim().toLowerCase()
  const terms = termsOf(query)
  const scored = registry.all()
    .filter((bee) => matches(bee, input, board))
    .map((bee) => ({ bee, score: relevance(bee, query, terms), health: board.of(bee.record.id) }))
    .filter(({ score }) => terms.length === 0 || score > 0)
    // Stable: equal scores stay in id order.
    .sort((a, b) => b.score - a.score)
  // Stable again: equally reliable Bees stay in order of relevance.
  if (input.sort === 'reliability') scored.sort((a, b) => byReliability(a.health, b.health))
  return {
    bees: scored.slice(0, input.limit ?? 10).map(({ bee, score, health }) => ({
      id: bee.record.id,
      name: bee.record.name,
      description: bee.record.description,
      category: bee.record.category,
      pricing: { ...bee.record.pricing },
      relevance: score,
      health,
      inputSchema: toToolSchema(bee.record.inputSchema as never) as Record<string, never>,
      outputSchema: toToolSchema(bee.record.outputSchema as never) as Record<string, never>
    }))
  }
}
