import type { FastifyPluginAsync } from 'fastify'
import { Type } from 'typebox'
import { ref } from '../../core/schemas.js'
import { agentCard } from '../a2a/card.js'
import { A2aEndpoint } from '../a2a/endpoint.js'
import { apiaryDetails } from '../a2a/errors.js'
import { JsonRpcErrorResponse, JsonRpcRequest, JsonRpcResponse } from '../a2a/json-rpc.js'
import { A2A_PATH, A2A_VERSION, AGENT_CARD_PATH } from '../a2a/protocol.js'
import { AgentCard } from '../a2a/schemas.js'
import { baseUrlOf } from '../base-url.js'
import { PerBaseUrl, sendCached } from '../cached-text.js'
import { BAD_HOST } from '../refusals.js'
import { doorGuard } from '../door-guard.js'
import { IDEMPOTENCY_HEADER } from '../execution-headers.js'
import { jsonRpcRefusals, refusalResponses } from '../json-rpc-errors.js'
import { walletTokenOf } from '../wallet-token.js'

/** The A2A door: the agent card, and the JSON-RPC binding's SendMessage over the execution pipeline. */
const a2aRoutes: FastifyPluginAsync = async (fastify) => {
  const { registry, executor } = fastify
  const endpoint = new A2aEndpoint({ registry, execute: (request) => executor.execute(request) })
  // One card per registry version and origin the service is reached at (bounded: Host is the client's).
  let cards = { version: registry.version, byOrigin: new PerBaseUrl() }

  fastify.get(AGENT_CARD_PATH, {
    schema: {
      tags: ['a2a'],
      operationId: 'agent-card',
      security: [],
      summary: 'The A2A agent card',
      description: `The A2A ${A2A_VERSION} agent card: every active Bee is a skill, and the JSON-RPC endpoint is POST ${A2A_PATH}. ` +
        'Rebuilt when the registry changes; answers carry a strong ETag: send it back in If-None-Match to get 304 while nothing changed.',
      response: {
        200: AgentCard,
        304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
        400: BAD_HOST
      }
    }
  }, async (request, reply) => {
    // The URLs in the card are where the client reached us (behind a gateway: its X-Forwarded-Proto and -Host).
    const origin = baseUrlOf(request)
    if (cards.version !== registry.version) cards = { version: registry.version, byOrigin: new PerBaseUrl() }
    const card = cards.byOrigin.get(origin, () => JSON.stringify(agentCard(origin, registry.all())))
    return sendCached(request, reply, card, 'application/json; charset=utf-8')
  })

  fastify.post(A2A_PATH, {
    schema: {
      tags: ['a2a'],
      operationId: 'a2a',
      security: [{}, { walletToken: [] }],
      summary: `A2A ${A2A_VERSION} JSON-RPC endpoint`,
      description: 'SendMessage with one data part {"beeId", "input"} runs the Bee and answers with the finished task: ' +
        'COMPLETED with the Honey as its artifact, AUTH_REQUIRED when a funded wallet is needed (the 402 body in the status ' +
        'message), REJECTED for another refusal, FAILED when running it failed. Send A2A-Version: 1.0. Pay-per-use Bees take ' +
        'the wallet token from X-Registry-Wallet-Token, else from the request\'s metadata "ai.apiary/walletToken"; ' +
        'Idempotency-Key likewise ("ai.apiary/idempotencyKey"). Other methods answer UnsupportedOperation (-32004) or ' +
        'PushNotificationNotSupported (-32003); JSON-RPC errors come with HTTP 200 unless the HTTP request itself was refused.',
      body: JsonRpcRequest,
      response: {
        200: JsonRpcResponse,
        400: ref(JsonRpcErrorResponse, { description: 'Not JSON (-32700), or a body the app refuses (-32600), such as too deep.' }),
        ...refusalResponses(JsonRpcErrorResponse)
      }
    },
    // The endpoint checks the message and answers in JSON-RPC (-32600, -32602): route validation would
    // answer in the app's error shape instead. The schema above documents it.
    validatorCompiler: () => () => true,
    onRequest: doorGuard(fastify.config),
    // The app's refusals in JSON-RPC, their body in A2A's error details; on this route only, so the agent
    // card keeps the standard error body.
    preSerialization: jsonRpcRefusals(apiaryDetails)
  }, async (request) => {
    const version = request.headers['a2a-version'] ?? (request.query as Record<string, unknown>)['A2A-Version']
    return await endpoint.answer(request.body, typeof version === 'string' ? version : undefined, {
      walletToken: walletTokenOf(request),
      idempotencyKey: request.headers[IDEMPOTENCY_HEADER],
      requestId: request.id,
      log: request.log
    })
  })
}

export default a2aRoutes
