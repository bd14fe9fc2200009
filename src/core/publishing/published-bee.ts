import type { CatalogBee, StoredExecution } from '../ledger/catalog/catalog-repository.js'
import { fromMicros } from '../money.js'
import { recordOf, registeredBee, type BeeDescription } from '../registered-bee.js'
import type { RegisteredBee } from '../registry.js'
import type { BeeRecord } from '../schemas.js'
import { checkPatterns } from './pattern-safety.js'
import { PROXY_ERRORS, type RemoteBeeProxy } from './proxy.js'
import { checkFormats, knownLoadable } from './schema-checks.js'
import { checkZodConvertible } from './zod-compat.js'

/** The record's view of how the Bee's calls run: the limit of a run, and a stream's event schema, only where they apply. */
function executionConfig (execution: StoredExecution | undefined): Pick<BeeRecord['config'], 'executionMode' | 'maxRunSeconds' | 'eventSchema'> {
  if (execution === undefined || execution.mode === 'sync') return { executionMode: 'sync' }
  return {
    executionMode: execution.mode,
    ...(execution.maxRunSeconds === null ? {} : { maxRunSeconds: execution.maxRunSeconds }),
    ...(execution.eventSchema === null ? {} : { eventSchema: execution.eventSchema })
  }
}

/** A stored Bee as its author declared it, without what runs it. */
function describe (bee: Omit<CatalogBee, 'secrets'>): BeeDescription {
  return {
    id: bee.id,
    name: bee.name,
    description: bee.description,
    category: bee.category,
    colony: bee.colony,
    type: 'remote',
    ownerId: bee.ownerId,
    pricing: {
      type: bee.pricing.type,
      costPerCall: fromMicros(bee.pricing.costMicros),
      currency: bee.pricing.currency,
      ...(bee.pricing.plan === undefined ? {} : { plan: bee.pricing.plan })
    },
    config: { primaryServices: bee.primaryServices, executionProvider: new URL(bee.endpoint).host, ...executionConfig(bee.execution) },
    inputSchema: bee.inputSchema as never,
    outputSchema: bee.outputSchema as never,
    status: bee.status,
    statusMessage: bee.statusMessage,
    sunsetAt: bee.sunsetAt,
    lastUpdated: bee.updatedAt,
    errors: PROXY_ERRORS,
    callsPerMinute: bee.callsPerMinute
  }
}

/** A stored Bee's public record, as a listing shows it: nothing compiled, no secret opened. */
export const publishedRecord = (bee: Omit<CatalogBee, 'secrets'>): BeeRecord => recordOf(describe(bee))

/**
 * A stored Bee ready to run through the proxy. Publishing only stores what loads, but a Bee stored by an older
 * version may hold a schema this one refuses (one Ajv cannot compile, a pattern open to ReDoS, one Zod would
 * read differently): that throws, and the Bee is not served, while its owner can still change or remove it.
 */
export function publishedBee (bee: CatalogBee, proxy: RemoteBeeProxy): RegisteredBee {
  // A schema this process has seen pass every check (at its publish, say) passes these, a subset, again.
  const unchecked = ([['inputSchema', bee.inputSchema], ['outputSchema', bee.outputSchema]] as const).filter(([, schema]) => !knownLoadable(schema))
  for (const [where, schema] of unchecked) checkPatterns(schema, where)
  for (const [where, schema] of unchecked) checkFormats(schema, where)
  for (const [where, schema] of unchecked) checkZodConvertible(schema, where)
  // Opened on the Bee's first call, not when it is loaded.
  let secrets: ReturnType<CatalogBee['secrets']> | undefined
  return registeredBee({
    ...describe(bee),
    execute: (input, context) => {
      secrets ??= bee.secrets()
      return proxy.call({
        beeId: bee.id,
        endpoint: bee.endpoint,
        signingSecret: secrets.signingSecret,
        previousSigningSecret: secrets.previousSigningSecret,
        previousUntil: Date.parse(bee.previousSecretExpiresAt ?? '')
      }, input, context)
    }
  }, true)
}
