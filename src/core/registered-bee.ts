import type { PlanMicros } from './ledger/subscriptions/subscription-repository.js'
import { toMicros } from './money.js'
import type { BeeDefinition, RegisteredBee } from './bee.js'
import type { BeeRecord } from './schemas.js'
import { checkBodySchema, compileBodySchema, lazyValidator } from './validation.js'

/** A Bee's definition without the function that runs it: all a listing needs. */
export type BeeDescription = Omit<BeeDefinition, 'execute'>

export const executePath = (id: string) => `/api/bees/${id}/execute`

/** A Bee's version when it declares none, and every published Bee's first unless its publisher says otherwise. */
export const DEFAULT_VERSION = '1.0.0'

/** A subscription Bee's plan in micro-units; its costPerCall must be the overage price (0 without one). */
function planMicros (definition: BeeDescription): PlanMicros | null {
  const { type, plan, costPerCall } = definition.pricing
  if (type !== 'subscription') return null
  if (plan === undefined) throw new Error(`Subscription Bee "${definition.id}" needs a plan`)
  const periodPriceMicros = toMicros(plan.periodPrice)
  const overageMicros = plan.overagePrice === null ? null : toMicros(plan.overagePrice)
  if (periodPriceMicros === null || periodPriceMicros <= 0 || (overageMicros === null && plan.overagePrice !== null)) {
    throw new Error(`Bee "${definition.id}" has a plan price with more than 6 decimal places`)
  }
  if ((plan.overagePrice ?? 0) !== costPerCall) throw new Error(`Subscription Bee "${definition.id}": costPerCall must be the plan's overagePrice, or 0 without one`)
  return { periodPriceMicros, periodSeconds: plan.periodDays * 86_400, includedCalls: plan.includedCalls, overageMicros }
}

/** A Bee's public record, as discovery lists it and its detail shows it (the keys in this order, in every answer). */
export function recordOf (definition: BeeDescription): BeeRecord {
  const {
    execute: _execute, errors: _errors, inputSchema, outputSchema, status, statusMessage, sunsetAt, lastUpdated,
    callsPerMinute: _callsPerMinute, version, ...metadata
  } = definition as BeeDefinition
  return {
    ...metadata,
    version: version ?? DEFAULT_VERSION,
    endpoint: executePath(definition.id),
    inputSchema,
    outputSchema,
    status: status ?? 'active',
    statusMessage: statusMessage ?? null,
    sunsetAt: sunsetAt ?? null,
    lastUpdated: lastUpdated ?? new Date().toISOString()
  }
}

/**
 * What the execution pipeline needs of a Bee, computed once per Bee version. `callsPerMinute`: the operator's
 * limit for a built-in Bee, which replaces its own.
 */
export function registeredBee (definition: BeeDefinition, remote: boolean, callsPerMinute?: number): RegisteredBee {
  const priceMicros = toMicros(definition.pricing.costPerCall)
  if (priceMicros === null) throw new Error(`Bee "${definition.id}" has a price with more than 6 decimal places`)
  if (definition.pricing.type === 'pay-per-use' && priceMicros <= 0) throw new Error(`Pay-per-use Bee "${definition.id}" needs a price above 0`)
  const plan = planMicros(definition)
  const { inputSchema, outputSchema } = definition
  const { eventSchema } = definition.config
  // A built-in Bee's schemas are the service's own, validated on every door as its route validates them.
  const origin = remote ? 'publisher' : 'service'
  if (remote) {
    checkBodySchema(inputSchema)
    checkBodySchema(outputSchema)
  }
  return {
    record: recordOf(definition),
    definition,
    paid: definition.pricing.type !== 'free',
    priceMicros,
    plan,
    // Compiled on the version's first call (not for the whole catalog at start, nor at every change), and freed with it (see compileBodySchema).
    validateInput: lazyValidator(() => compileBodySchema(inputSchema, origin)),
    validateOutput: lazyValidator(() => compileBodySchema(outputSchema, origin)),
    validateEvent: eventSchema === undefined ? null : lazyValidator(() => compileBodySchema(eventSchema, origin)),
    remote,
    callsPerMinute: callsPerMinute ?? definition.callsPerMinute ?? null
  }
}
