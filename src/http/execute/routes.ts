import type { FastifyInstance, RouteShorthandOptions } from 'fastify'
import { Type, type TSchema } from 'typebox'
import type { RegisteredBee } from '../../core/registry.js'
import { AnyResult, BeeIdParams } from '../../core/schemas.js'
import { admitBee, chargeForCall, claimIdempotencyKey, limitBee, runBee, settleIdempotencyKey, validateBody } from './hooks.js'
import { anyUpstream, executeResponses, requestHeaders } from './responses.js'
import { RUN_ACCEPTED, withRunHeaders, withRunCodes } from './runs.js'
import { admitStream, withAccept, withStreamCodes } from './streams.js'

/** The hooks every execute route runs, in the pipeline's order; `validate` only where the route schema cannot. */
function pipelineHooks (options: { validate: boolean, paid: boolean }): RouteShorthandOptions {
  return {
    preValidation: admitBee,
    preHandler: [
      ...(options.validate ? [validateBody] : []),
      claimIdempotencyKey,
      limitBee,
      admitStream,
      ...(options.paid ? [chargeForCall] : [])
    ],
    onSend: settleIdempotencyKey
  }
}

/** Registers a Bee's own execute route, with its exact input and output schemas. */
export function mountBee (fastify: FastifyInstance, bee: RegisteredBee) {
  const { id, name, description, inputSchema, outputSchema } = bee.record
  fastify.post(`/bees/${id}/execute`, {
    schema: {
      tags: ['execute'],
      operationId: `execute-${id}`,
      summary: `Execute ${name}`,
      description,
      security: bee.paid ? [{ walletToken: [] }] : [],
      headers: requestHeaders(bee.paid && fastify.x402 !== null),
      body: inputSchema,
      response: executeResponses(outputSchema as TSchema, bee, bee.definition.errors ?? {}, fastify.x402 !== null)
    },
    config: { bee },
    ...pipelineHooks({ validate: false, paid: bee.paid })
  }, runBee)
}

/** Registers the execute route of any Bee by id: the body is validated by the core, against the Bee it names. */
export function mountGenericExecute (fastify: FastifyInstance) {
  fastify.post('/bees/:id/execute', {
    schema: {
      tags: ['execute'],
      operationId: 'execute-bee',
      summary: 'Execute any Bee by id',
      description: 'Runs the Bee with the JSON body as its input (see the Bee\'s inputSchema) and answers Honey. ' +
        'A built-in Bee also has its own path in this document; every Bee\'s exact schemas are in its own document, ' +
        'GET /api/bees/{id}/openapi.json.',
      security: [{}, { walletToken: [] }],
      params: BeeIdParams,
      headers: withAccept(withRunHeaders(requestHeaders(fastify.x402 !== null))),
      body: Type.Object({}, { additionalProperties: true, description: 'Input following the Bee\'s inputSchema.' }),
      response: { ...executeResponses(AnyResult, undefined, withStreamCodes(withRunCodes(anyUpstream(fastify))), fastify.x402 !== null), 202: RUN_ACCEPTED }
    },
    // Payment is the core's to decide here: a free Bee passes its step untouched.
    ...pipelineHooks({ validate: true, paid: true })
  }, runBee)
}
