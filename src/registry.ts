import type { ValidateFunction } from 'ajv'
import type { FastifyBaseLogger } from 'fastify'
import type { Static, TSchema } from 'typebox'
import { toMicros } from './money.js'
import type { BeeRecord, Pricing } from './schemas.js'
import { bodyAjv } from './validation.js'

/** What a Bee's handler returns; the pipeline wraps it in Honey. */
export interface BeeOutcome<Result> {
  result: Result
  /** 0..1; each Bee documents its meaning. */
  confidence: number
  /** Age in seconds of the data behind the result. */
  freshness: number
}

export interface BeeContext {
  log: FastifyBaseLogger
  requestId: string
}

/** A Bee as its author declares it: metadata, schemas and the function that does the work. */
export interface BeeDefinition<In extends TSchema = TSchema, Out extends TSchema = TSchema> {
  id: string
  name: string
  description: string
  category: string
  colony: string
  type: string
  ownerId: string | null
  pricing: Pricing
  config: BeeRecord['config']
  inputSchema: In
  outputSchema: Out
  execute (input: Static<In>, context: BeeContext): Promise<BeeOutcome<Static<Out>>>
}

/** A registered Bee: its public record plus what the execution pipeline needs, computed once. */
export interface RegisteredBee {
  record: BeeRecord
  definition: BeeDefinition
  paid: boolean
  priceMicros: number
  validateInput: ValidateFunction
  validateOutput: ValidateFunction
}

export const executePath = (id: string) => `/api/bees/${id}/execute`

/**
 * The registry is plain data, independent of routes: a Bee can be added at any time and the
 * execution pipeline serves it through the same validation, payment and Honey steps.
 */
export class Registry {
  readonly #bees = new Map<string, RegisteredBee>()

  register<In extends TSchema, Out extends TSchema> (definition: BeeDefinition<In, Out>): RegisteredBee {
    if (this.#bees.has(definition.id)) throw new Error(`Bee "${definition.id}" is already registered`)
    const priceMicros = toMicros(definition.pricing.costPerCall)
    if (priceMicros === null) throw new Error(`Bee "${definition.id}" has a price with more than 6 decimal places`)
    const paid = definition.pricing.type === 'pay-per-use'
    if (paid && priceMicros <= 0) throw new Error(`Pay-per-use Bee "${definition.id}" needs a price above 0`)
    const { execute, inputSchema, outputSchema, ...metadata } = definition
    const entry: RegisteredBee = {
      record: {
        ...metadata,
        endpoint: executePath(definition.id),
        inputSchema,
        outputSchema,
        status: 'active',
        lastUpdated: new Date().toISOString()
      },
      definition: definition as unknown as BeeDefinition,
      paid,
      priceMicros,
      validateInput: bodyAjv.compile(inputSchema),
      validateOutput: bodyAjv.compile(outputSchema)
    }
    this.#bees.set(definition.id, entry)
    return entry
  }

  get (id: string): RegisteredBee | undefined {
    return this.#bees.get(id)
  }

  active (): BeeRecord[] {
    const records: BeeRecord[] = []
    for (const bee of this.#bees.values()) if (bee.record.status === 'active') records.push(bee.record)
    return records
  }
}
