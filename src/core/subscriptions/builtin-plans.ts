import { Ajv, type ValidateFunction } from 'ajv'
import { isBeeId, SubscriptionPlan } from '../schemas.js'
import { toMicros } from '../money.js'

// Compiled when a plan is configured, not by every start (an Ajv instance and a compile are tens of ms).
let planValidator: ValidateFunction<SubscriptionPlan> | undefined
const validPlanOf = () => (planValidator ??= new Ajv({ allErrors: true, strict: false }).compile<SubscriptionPlan>(SubscriptionPlan))

/**
 * SUBSCRIPTION_BUILTIN_BEES (a JSON object from built-in Bee id to its plan, e.g.
 * `{"sentiment-analyzer":{"periodPrice":5,"periodDays":30,"includedCalls":10000,"overagePrice":0.0005}}`)
 * as a map, and why each entry that is not a Bee id with a valid plan was refused. Empty: none.
 */
export function parseBuiltinPlans (text: string): { plans: Map<string, SubscriptionPlan>, problems: string[] } {
  const plans = new Map<string, SubscriptionPlan>()
  if (text.trim() === '') return { plans, problems: [] }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { plans, problems: ['is not JSON: write an object from Bee id to plan'] }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { plans, problems: ['must be a JSON object from Bee id to plan'] }
  const problems: string[] = []
  const validPlan = validPlanOf()
  for (const [id, plan] of Object.entries(parsed)) {
    if (!isBeeId(id)) {
      problems.push(`"${id}" is not a Bee id`)
    } else if (!validPlan(plan)) {
      problems.push(`${id}: the plan ${(validPlan.errors ?? []).map((error) => `${error.instancePath || 'itself'} ${error.message ?? ''}`).join(', ')} ` +
        '(periodPrice, periodDays, includedCalls, overagePrice: number or null)')
    } else if (toMicros(plan.periodPrice) === null || (plan.overagePrice !== null && toMicros(plan.overagePrice) === null)) {
      problems.push(`${id}: plan prices have at most 6 decimal places`)
    } else {
      plans.set(id, plan)
    }
  }
  return { plans, problems }
}
