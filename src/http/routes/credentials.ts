import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { beeNotFound, failure } from '../../core/errors.js'
import { hashSecret, newSecret } from '../../core/ledger/secrets.js'
import { owned, ownerScope } from '../../core/ownership.js'
import { BeeIdParams, Publisher } from '../../core/schemas.js'
import { BEE_NOT_FOUND, BODY_NOT_JSON, bodyRefusals, PRINCIPAL_REQUIRED, refusal } from '../refusals.js'

const RotatedPublisherKey = Type.Object({
  ...Publisher.properties,
  key: Type.String({ description: 'The new publisher key. Shown only here; the previous key no longer works.' })
}, { description: 'The publisher with its new key.' })

const RotatedSigningSecret = Type.Object({
  beeId: Type.String({ description: 'The Bee whose calls the secret signs.' }),
  signingSecret: Type.String({ description: 'The new signing secret. Shown only here.' }),
  previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Until when calls also carry a signature with the previous secret (SIGNING_SECRET_OVERLAP_SECONDS); null when it ended at once.'
  })
}, { description: 'The Bee\'s new signing secret.' })

const PublisherParams = Type.Object({
  id: Type.String({ pattern: '^pub_[A-Za-z0-9_-]{1,64}$', description: 'Identifier of the publisher.' })
})

/**
 * Rotation of the credentials Apiary issues: a publisher's key (the old one is revoked at once) and a
 * Bee's signing secret (the old one keeps signing for an overlap, so the publisher can roll without
 * downtime). The operator rotates any; a publisher, authenticated by its current key, its own.
 */
const credentialRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const store = fastify.ledger.catalog

  fastify.post('/publishers/:id/key/rotate', {
    schema: {
      tags: ['publishing'],
      operationId: 'rotate-publisher-key',
      summary: 'Replace a publisher key',
      description: 'Issues a new key and revokes the one in use at once. The answer holds the new key: the only time it is shown. ' +
        'A publisher rotates its own key; the operator any (and revokes a key by rotating it and keeping the answer).',
      security: [{ publisherKey: [] }, { adminToken: [] }],
      params: PublisherParams,
      response: {
        200: RotatedPublisherKey,
        ...bodyRefusals('The publisher id is malformed, or a body was sent and it is not JSON.', ['VALIDATION_FAILED']),
        401: PRINCIPAL_REQUIRED,
        404: refusal('No publisher with this id, or not yours.', ['PUBLISHER_NOT_FOUND'])
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request, reply) => {
    const { id } = request.params
    const principal = request.principal
    const notFound = failure('PUBLISHER_NOT_FOUND', `No publisher you manage has the id "${id}".`)
    const scope = principal === null ? null : ownerScope(principal)
    if (principal === null || (scope !== undefined && scope !== id)) throw notFound
    const key = newSecret('apk')
    const publisher = await store.rotatePublisherKey(id, hashSecret(key))
    if (publisher === null) throw notFound
    request.log.info({ publisherId: id, by: principal.kind }, 'publisher key rotated')
    return reply.header('cache-control', 'no-store').send({ ...publisher, key })
  })

  fastify.post('/bees/:id/signing-secret/rotate', {
    schema: {
      tags: ['publishing'],
      operationId: 'rotate-signing-secret',
      summary: 'Replace a Bee\'s signing secret',
      description: 'Issues a new signing secret, shown only in this answer. For SIGNING_SECRET_OVERLAP_SECONDS (24 h by default) ' +
        'each call carries two signatures, `v1=<new>,v1=<previous>`, so your endpoint keeps accepting calls while you deploy the new secret.',
      security: [{ publisherKey: [] }, { adminToken: [] }],
      params: BeeIdParams,
      response: {
        200: RotatedSigningSecret,
        ...BODY_NOT_JSON,
        401: PRINCIPAL_REQUIRED,
        404: BEE_NOT_FOUND
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request, reply) => {
    const { id } = request.params
    const principal = request.principal
    if (principal === null) throw beeNotFound(id)
    owned(principal, await store.publishedBee(id), () => beeNotFound(id))
    const overlapSeconds = fastify.config.SIGNING_SECRET_OVERLAP_SECONDS
    const previousSecretExpiresAt = overlapSeconds === 0 ? null : new Date(Date.now() + overlapSeconds * 1000).toISOString()
    const signingSecret = newSecret('bsk')
    if (!await store.rotateSigningSecret(id, signingSecret, previousSecretExpiresAt)) throw beeNotFound(id)
    await fastify.catalog.refresh()
    request.log.info({ beeId: id, by: principal.kind }, 'signing secret rotated')
    return reply.header('cache-control', 'no-store').send({ beeId: id, signingSecret, previousSecretExpiresAt })
  })
}

export default credentialRoutes
