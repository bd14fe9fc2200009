import type { CallToolResult, Tool } from '@modelcontextprotocol/server'
import { Type, type Static } from 'typebox'
import { bodyOf, validationFailed } from '../../core/errors.js'
import type { HealthBoard } from '../../core/health/board.js'
import { byReliability, meetsSuccessRate } from '../../core/health/reliability.js'
import type { CatalogListing } from '../../core/catalog-listing.js'
import type { CatalogSearch } from '../../core/search.js'
import { BeeHealth, BeeId, Pricing, StringEnum, type BeeRecord } from '../../core/schemas.js'
import { compileBodySchema } from '../../core/validation.js'
import { toolError, type Era } from './errors.js'
import { toToolSchema } from './json-schema.js'

export const FIND_BEES = 'find_bees'
const MAX_LIMIT = 50

export const FindBeesInput = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 200, description: 'Words to look for in the Bee\'s id, name, category, colony and description, in any order: the Bees with every word (or when none has them all, any), the best matches first. Leave out to list by id.' })),
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

const validateInput = compileBodySchema(FindBeesInput, 'service')

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

/** Bees read from the catalog per step while listing by id: most answers need one. */
const WALK_PAGE = 100

function matches (record: BeeRecord, input: FindBeesInput, board: HealthBoard): boolean {
  if (input.minSuccessRate !== undefined && !meetsSuccessRate(board.of(record.id), input.minSuccessRate)) return false
  if (input.category !== undefined && record.category.toLowerCase() !== input.category.toLowerCase()) return false
  if (input.freeOnly === true && record.pricing.type !== 'free') return false
  if (input.maxPrice !== undefined && record.pricing.costPerCall > input.maxPrice) return false
  return true
}

/** find_bees: arguments that fail validation are a tool error the model can correct, as for any Bee. */
export async function findBees (listing: CatalogListing, board: HealthBoard, search: CatalogSearch, args: unknown, era: Era): Promise<CallToolResult> {
  // Validation fills in defaults; the caller's object stays as it was sent.
  const input = structuredClone(args ?? {})
  if (!validateInput(input)) return toolError(bodyOf(validationFailed(validateInput.errors ?? [], 'input', 'input')), era)
  const found = await find(listing, board, search, input as FindBeesInput)
  return { content: [{ type: 'text', text: JSON.stringify(found) }], structuredContent: found }
}

/**
 * The active Bees `find` ranks, reading no more of the catalog than the answer needs: with a query, the search's
 * hits (or with minSuccessRate, the rated Bees: the health board's, bounded by use) read in one query, in the
 * search's order; without, the Bees in id order a page at a time until `limit` pass the filters, after the rated
 * ones by reliability when that is the order asked.
 */
async function candidates (
  listing: CatalogListing, board: HealthBoard, relevance: ReadonlyMap<string, number> | null, input: FindBeesInput, limit: number
): Promise<BeeRecord[]> {
  const pricing = input.freeOnly === true ? 'free' : undefined
  const read = async (ids: string[]) => (await listing.list({ pricing, ids }, ids.length)).records.filter((record) => matches(record, input, board))
  if (relevance !== null) return (await read([...relevance.keys()])).sort((a, b) => (relevance.get(b.id) ?? 0) - (relevance.get(a.id) ?? 0))
  if (input.minSuccessRate !== undefined) return await read(board.rated())
  const ranked = input.sort === 'reliability' ? (await read(board.rated())).sort((a, b) => byReliability(board.of(a.id), board.of(b.id))) : []
  const rankedIds = new Set(ranked.map((record) => record.id))
  const found = [...ranked]
  let after: string | undefined
  for (;;) {
    const { records, more } = await listing.list({ pricing, after }, WALK_PAGE)
    found.push(...records.filter((record) => !rankedIds.has(record.id) && matches(record, input, board)))
    after = records.at(-1)?.id
    if (!more || found.length >= limit) return found
  }
}

/** The catalog's search (the same as discovery's q), then the filters; without a query, the active Bees in id order. */
async function find (listing: CatalogListing, board: HealthBoard, search: CatalogSearch, input: FindBeesInput): Promise<FindBeesOutput> {
  const query = (input.query ?? '').trim()
  const relevance = query === '' ? null : await search(query)
  const limit = input.limit ?? 10
  const scored = (await candidates(listing, board, relevance, input, limit))
    .map((record) => ({ record, score: relevance?.get(record.id) ?? 0, health: board.of(record.id) }))
  // Stable: equally reliable Bees stay in order of relevance (the search's, best first).
  if (input.sort === 'reliability') scored.sort((a, b) => byReliability(a.health, b.health))
  return {
    bees: scored.slice(0, limit).map(({ record, score, health }) => ({
      id: record.id,
      name: record.name,
      description: record.description,
      category: record.category,
      pricing: { ...record.pricing },
      relevance: score,
      health,
      inputSchema: toToolSchema(record.inputSchema as never) as Record<string, never>,
      outputSchema: toToolSchema(record.outputSchema as never) as Record<string, never>
    }))
  }
}
