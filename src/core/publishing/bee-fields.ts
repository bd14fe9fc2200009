import type { CodeWithStatus, OneStatusCode } from '../error-catalog.js'
import { failure, type ApiError } from '../errors.js'
import type { ChangedBee, StoredBee, StoredExecution } from '../ledger/catalog/catalog-repository.js'
import { toMicros } from '../money.js'
import type { ExecutionMode, SubscriptionPlan } from '../schemas.js'
import { SchemaRefused } from './json-schema.js'
import { forOpenApiDocument } from './openapi-document-schema.js'
import { checkLoadable } from './schema-checks.js'
import { toOutputSchema } from './schema-conversion.js'

/** A price as a publisher states it (the spec's pricing, and Apiary's plan). */
export interface PricingChoice {
  type: 'free' | 'pay-per-use' | 'subscription'
  costPerCall?: number | undefined
  currency?: string | undefined
  plan?: SubscriptionPlan | undefined
}

export function refused (code: Extract<OneStatusCode, CodeWithStatus<400>>, message: string): ApiError {
  return failure(code, message)
}

/** The price the catalog stores, or a refusal of the one stated. */
export function priceOf (pricing: PricingChoice, defaultCurrency: string): StoredBee['pricing'] {
  // The spec makes costPerCall optional: it is 0 for a free Bee, and a subscription's follows from its plan.
  const costPerCall = pricing.costPerCall ?? (pricing.type === 'subscription' ? pricing.plan?.overagePrice ?? 0 : 0)
  const costMicros = toMicros(costPerCall)
  if (costMicros === null) throw refused('INVALID_AMOUNT', 'costPerCall has at most 6 decimal places.')
  if (pricing.type === 'pay-per-use' && costMicros === 0) throw refused('INVALID_PRICE', 'A pay-per-use Bee needs a costPerCall above 0.')
  if (pricing.type === 'free' && costMicros !== 0) throw refused('INVALID_PRICE', 'A free Bee has costPerCall 0.')
  const currency = pricing.currency ?? defaultCurrency
  if (pricing.type !== 'subscription') {
    if (pricing.plan !== undefined) throw refused('INVALID_PRICE', 'Only a subscription Bee has a plan.')
    return { type: pricing.type, costMicros, currency }
  }
  const { plan } = pricing
  if (plan === undefined) throw refused('INVALID_PRICE', 'A subscription Bee needs a plan.')
  if (toMicros(plan.periodPrice) === null || (plan.overagePrice !== null && toMicros(plan.overagePrice) === null)) {
    throw refused('INVALID_AMOUNT', 'Plan prices have at most 6 decimal places.')
  }
  if ((plan.overagePrice ?? 0) !== costPerCall) throw refused('INVALID_PRICE', 'A subscription Bee\'s costPerCall is its plan\'s overagePrice, or 0 without one.')
  return { type: 'subscription', costMicros, currency, plan }
}

/** A schema as converted for the catalog, or INVALID_SCHEMA with why it was refused. */
export function schemaOf (convert: () => Record<string, unknown>): StoredBee['inputSchema'] {
  try {
    return convert() as StoredBee['inputSchema']
  } catch (error) {
    if (error instanceof SchemaRefused) throw refused('INVALID_SCHEMA', error.message)
    throw error
  }
}

/**
 * A stored schema a change keeps. One stored by an older version may be one this version cannot
 * load (the catalog skips such a Bee): the change must then bring a new one, else the Bee would stay
 * unservable. Only loadability is checked, so a legacy Bee can still be deprecated as it is.
 */
export function keptSchema (schema: StoredBee['inputSchema'], where: 'inputSchema' | 'outputSchema'): StoredBee['inputSchema'] {
  return schemaOf(() => {
    try {
      checkLoadable(schema, `the stored ${where}`)
    } catch (error) {
      if (error instanceof SchemaRefused) throw new SchemaRefused(`${error.message}. Send a new ${where} with this change.`)
      throw error
    }
    return schema
  })
}

/**
 * What a Bee puts in its OpenAPI document (GET /api/bees/{id}/openapi.json), which a client reads whole: its name,
 * description and both schemas, written as the document writes them.
 */
export function checkDocumentShare (bee: ChangedBee, maxBytes: number): void {
  const bytes = Buffer.byteLength(JSON.stringify([bee.name, bee.description, forOpenApiDocument(bee.inputSchema), forOpenApiDocument(bee.outputSchema)]))
  if (bytes > maxBytes) {
    throw failure('BEE_DOCUMENT_TOO_LARGE', `This Bee would take ${bytes} bytes of its OpenAPI document (its name, description ` +
      `and schemas); a Bee may take at most ${maxBytes} (PUBLISHER_MAX_OPENAPI_BYTES). Shorten its schemas or description.`)
  }
}

/** How a publisher says a Bee's calls run (config.executionMode and its companions). */
export interface ExecutionChoice {
  executionMode?: ExecutionMode | undefined
  maxRunSeconds?: number | undefined
  eventSchema?: object | undefined
}

const invalidExecution = (message: string) => failure('INVALID_EXECUTION', message)

/**
 * The execution the catalog stores, or a refusal. `kept`: the Bee's execution before a change, whose limit and event
 * schema stay unless the change gives new ones or a new mode. `runMax`: RUN_MAX_SECONDS.
 */
export function executionOf (choice: ExecutionChoice, pricing: StoredBee['pricing'], runMax: number, kept?: StoredExecution): StoredExecution {
  const mode = choice.executionMode ?? kept?.mode ?? 'sync'
  const same = kept !== undefined && kept.mode === mode
  if (mode === 'sync') {
    if (choice.maxRunSeconds !== undefined) throw invalidExecution('maxRunSeconds is for async and stream Bees; a sync Bee answers within REMOTE_BEE_TIMEOUT_MS.')
    if (choice.eventSchema !== undefined) throw invalidExecution('eventSchema is for stream Bees.')
    return { mode, maxRunSeconds: null, eventSchema: null }
  }
  // A run holds the caller's money while it lasts; a subscription's included calls are not held, so they wait for runs of their own.
  if (pricing.type === 'subscription') throw invalidExecution(`An ${mode} Bee is free or pay-per-use; subscription pricing is for sync Bees for now.`)
  const maxRunSeconds = choice.maxRunSeconds ?? (same ? kept.maxRunSeconds : null)
  if (maxRunSeconds !== null && maxRunSeconds > runMax) {
    throw invalidExecution(`maxRunSeconds is at most ${runMax} on this service (RUN_MAX_SECONDS).`)
  }
  if (mode === 'async') {
    if (choice.eventSchema !== undefined) throw invalidExecution('eventSchema is for stream Bees; an async Bee answers once, with its outputSchema.')
    return { mode, maxRunSeconds, eventSchema: null }
  }
  const eventSchema = choice.eventSchema === undefined ? (same ? kept.eventSchema : null) : schemaOf(() => toOutputSchema(choice.eventSchema))
  if (eventSchema === null) throw invalidExecution('A stream Bee needs an eventSchema: the JSON Schema of each event it sends.')
  return { mode, maxRunSeconds, eventSchema }
}
