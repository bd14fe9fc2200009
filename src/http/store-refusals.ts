/** What a route that reads or writes the ledger answers while its database is unreachable or full. */
export const STORE_CODES = ['STORE_UNAVAILABLE', 'STORE_FULL'] as const

interface Refusal {
  description: string
  allOf: [unknown, { properties: { code: { enum: string[] } } & Record<string, unknown> }]
}

const isRefusal = (response: unknown): response is Refusal => Array.isArray((response as Partial<Refusal> | null)?.allOf)

/**
 * A route's 503 (see refusal) with the ledger's codes added to its own. Only routes that list a 503 of their own list
 * these: on every route they would take the OpenAPI document past its 180 KB; docs/errors.md says any route may answer
 * them. A 503 of another shape (a JSON-RPC door's) names them in its own words, and is left as it is.
 */
export function withStoreRefusals (response: unknown): unknown {
  // A HEAD route shares its GET's schema: given twice, added once.
  if (!isRefusal(response) || response.allOf[1].properties.code.enum.includes(STORE_CODES[0])) return response
  const [body, own] = response.allOf
  return {
    ...response,
    description: `${response.description} Or the ledger database is down or full (STORE_*).`,
    allOf: [body, { ...own, properties: { ...own.properties, code: { enum: [...own.properties.code.enum, ...STORE_CODES] } } }]
  }
}
