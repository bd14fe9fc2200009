import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { beeNotFound } from '../errors.js'
import { executeResponses, IdempotencyHeaders, runBee } from '../execute.js'
import { AnyResult, BeeIdParams, BeeList, BeeRecord, ErrorBody } from '../schemas.js'

/** Discovery, detail, and execution of Bees that have no route of their own. */
const beeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { registry } = fastify

  fastify.get('/bees', {
    schema: {
      tags: ['discovery'],
      operationId: 'list-bees',
      summary: 'List the active Bees',
      description: 'Every active Bee with its schemas, pricing and execution details.',
      response: { 200: BeeList }
    }
  }, async () => ({ bees: registry.active() }))

  fastify.get('/bees/:id', {
    schema: {
      tags: ['discovery'],
      operationId: 'get-bee',
      summary: 'Read one Bee',
      description: 'The full record of a Bee, with its input and output schemas, pricing and description.',
      params: BeeIdParams,
      response: { 200: BeeRecord, 404: { ...ErrorBody, description: 'No Bee has this id.' } }
    }
  }, async (request) => {
    const bee = registry.get(request.params.id)
    if (bee === undefined) throw beeNotFound(request.params.id)
    return bee.record
  })

  fastify.post('/bees/:id/execute', {
    schema: {
      tags: ['execute'],
      operationId: 'execute-bee',
      summary: 'Execute any Bee by id',
      description: 'Runs the Bee with the JSON body as its input (see the Bee\'s inputSchema) and answers Honey. ' +
        'Each built-in Bee also has its own path below, documented with its exact schemas.',
      security: [{}, { walletToken: [] }],
      params: BeeIdParams,
      headers: IdempotencyHeaders,
      body: Type.Object({}, { additionalProperties: true, description: 'Input following the Bee\'s inputSchema.' }),
      response: executeResponses(AnyResult)
    },
    // Runs before body validation, so an unknown Bee is a 404 whatever the body.
    preValidation: async (request) => {
      const bee = registry.get(request.params.id)
      if (bee === undefined) throw beeNotFound(request.params.id)
      request.bee = bee
    },
    preHandler: [
      async (request) => {
        const bee = request.bee
        if (bee !== null && !bee.validateInput(request.body)) {
          throw Object.assign(new Error('body validation failed'), {
            validation: bee.validateInput.errors ?? [],
            validationContext: 'body',
            statusCode: 400
          })
        }
      },
      fastify.claimIdempotencyKey,
      fastify.chargeForCall
    ],
    onSend: fastify.settleIdempotencyKey
  }, runBee)
}

export default beeRoutes
