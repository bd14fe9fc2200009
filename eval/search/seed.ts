// Publishes the set's catalog into a running Apiary through its HTTP API, as publishers would: one publisher per colony.
import type { CatalogBee } from './set.js'

/** Every seeded Bee takes the same free-form query and answers text: search reads names, descriptions, categories and colonies. */
const INPUT_SCHEMA = {
  type: 'object',
  properties: { query: { type: 'string', minLength: 1, description: 'What to look up.' } },
  required: ['query']
}
const OUTPUT_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] }

async function post (url: string, token: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
  if (response.status !== 201) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`)
  return await response.json() as Record<string, unknown>
}

/**
 * Publishes `bees` to the service at `baseUrl` (`adminToken` issues the publisher keys). Their endpoints are never
 * called: the service must allow 127.0.0.1 (EGRESS_ALLOWLIST) and enough Bees per publisher (PUBLISHER_MAX_BEES).
 */
export async function seedCatalog (baseUrl: string, adminToken: string, bees: readonly CatalogBee[]): Promise<void> {
  const keys = new Map<string, string>()
  for (const bee of bees) {
    let key = keys.get(bee.colony)
    if (key === undefined) {
      const publisher = await post(`${baseUrl}/api/publishers`, adminToken, { email: `${bee.colony}@example.com`, name: bee.colony })
      key = String(publisher.key)
      keys.set(bee.colony, key)
    }
    await post(`${baseUrl}/api/bees`, key, {
      ...bee,
      endpoint: `http://127.0.0.1:9/${bee.id}`,
      inputSchema: INPUT_SCHEMA,
      outputSchema: OUTPUT_SCHEMA,
      pricing: { type: 'free', costPerCall: 0 },
      config: { primaryServices: [bee.name] }
    })
  }
}
