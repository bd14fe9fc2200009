import type { FastifyInstance } from 'fastify'
import { startFakeBee } from './fake-bee.js'
import { adminHeaders, build } from './helper.js'

export const shoutInput = {
  type: 'object',
  properties: { text: { type: 'string', minLength: 1, description: 'What to shout.' } },
  required: ['text']
}
export const shoutOutput = {
  type: 'object',
  properties: { shout: { type: 'string' }, length: { type: 'integer' } },
  required: ['shout', 'length']
}

/** A draft-07 inputSchema using what publishing converts: $ref to definitions, const, a type union, exclusiveMinimum. */
export const draft07Input = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    text: { $ref: '#/definitions/text' },
    mode: { const: 'loud' },
    note: { type: ['string', 'null'] },
    level: { type: 'number', exclusiveMinimum: 0 }
  },
  required: ['text'],
  definitions: { text: { type: 'string', minLength: 1 } }
}

/** The app, allowed to call a fake Bee on 127.0.0.1 (closed when the test ends), and a publisher. */
export async function publishingSetup (t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', ...env } })
  const publisher = await createPublisher(app)
  return { app, fake, publisher }
}

export async function createPublisher (app: FastifyInstance, name = 'Acme') {
  const response = await app.inject({
    method: 'POST', url: '/api/publishers', headers: adminHeaders, payload: { email: `${name.toLowerCase()}@example.com`, name }
  })
  if (response.statusCode !== 201) throw new Error(`publisher creation failed: ${response.body}`)
  const publisher = response.json<{ id: string, key: string, email: string }>()
  return { ...publisher, headers: { authorization: `Bearer ${publisher.key}` } }
}

export function beeBody (id: string, endpoint: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: `Shouter ${id}`,
    description: 'Shouts the text back in capitals.',
    category: 'utility',
    endpoint,
    inputSchema: shoutInput,
    outputSchema: shoutOutput,
    pricing: { type: 'free', costPerCall: 0 },
    colony: 'loud',
    config: { primaryServices: ['shouting'] },
    ...extra
  }
}

export async function publish (app: FastifyInstance, headers: Record<string, string>, body: object) {
  const response = await app.inject({ method: 'POST', url: '/api/bees', headers, payload: body })
  if (response.statusCode !== 201) throw new Error(`publish failed: ${response.body}`)
  return response.json<{ id: string, signingSecret: string }>()
}
