import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { hashSecret, newSecret } from '../../core/ledger/secrets.js'
import { CreatedPublisher } from '../../core/schemas.js'
import { ADMIN_REFUSALS, bodyRefusals } from '../refusals.js'

/** The operator issues publisher keys. */
const publisherRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/publishers', {
    schema: {
      tags: ['publishing'],
      operationId: 'create-publisher',
      summary: 'Issue a publisher key',
      description: 'Creates a publisher. The answer holds its key: the only time it is shown.',
      security: [{ adminToken: [] }],
      body: Type.Object({
        email: Type.String({ format: 'email', maxLength: 254, description: 'Contact address of the publisher.' }),
        name: Type.String({ minLength: 1, maxLength: 100, description: 'Display name.' })
      }, { description: 'The new publisher.', examples: [{ email: 'acme@example.com', name: 'Acme' }] }),
      response: {
        201: CreatedPublisher,
        ...bodyRefusals('The body does not match its schema.', ['VALIDATION_FAILED']),
        ...ADMIN_REFUSALS
      }
    },
    onRequest: fastify.requireAdmin
  }, async (request, reply) => {
    const key = newSecret('apk')
    const publisher = await fastify.ledger.catalog.createPublisher({
      id: `pub_${randomBytes(9).toString('base64url')}`,
      email: request.body.email,
      name: request.body.name,
      createdAt: new Date().toISOString(),
      keyHash: hashSecret(key)
    })
    return reply.code(201).send({ ...publisher, key })
  })
}

export default publisherRoutes
