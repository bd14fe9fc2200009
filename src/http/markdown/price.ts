import type { Pricing } from '../../core/schemas.js'

/** What one call costs, as a reader would say it. */
export function priceText (pricing: Pricing): string {
  if (pricing.type === 'free') return 'free'
  if (pricing.type === 'pay-per-use') return `${pricing.costPerCall} ${pricing.currency} per call`
  return pricing.type
}
