import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { discover } from '../../core/discovery.js'
import { ref, type BeeRecord } from '../../core/schemas.js'
import { agentCard } from '../a2a/card.js'
import { bodyOf, failure } from '../../core/errors.js'
import { PushConfigs } from '../../core/runs/push-configs.js'
import { A2aEndpoint, type A2aStream } from '../a2a/endpoint.js'
import { apiaryDetails, RpcCode } from '../a2a/errors.js'
import { failure as rpcFailure, JsonRpcErrorResponse, JsonRpcRequest, JsonRpcResponse } from '../a2a/json-rpc.js'
import { legacyAgentCard } from '../a2a/legacy-card.js'
import { LegacyAgentCard } from '../a2a/legacy-schemas.js'
import { A2A_PATH, A2A_VERSION, AGENT_CARD_PATH, isLegacyVersion, LEGACY_A2A_VERSION } from '../a2a/protocol.js'
import { AgentCard } from '../a2a/schemas.js'
import { baseUrlOf } from '../base-url.js'
import { PerBaseUrl, sendCached } from '../cached-text.js'
import { BAD_HOST } from '../refusals.js'
import { doorGuard } from '../door-guard.js'
import { IDEMPOTENCY_HEADER } from '../execution-headers.js'
import { jsonRpcRefusals, refusalResponses } from '../json-rpc-errors.js'
import { SseStream } from '../sse.js'
import { walletTokenOf } from '../wallet-token.js'
import { LLMS_SELECTION } from './llms.js'

/**
 * Sends a streamed answer as Server-Sent Events, one JSON-RPC response each (A2A §9.4.2); a failure on our side ends it
 * with a JSON-RPC error. The stream's place is given back once it closed.
 */
async function streamAnswer (answer: A2aStream, reply: FastifyReply): Promise<void> {
  const sse = new SseStream(reply)
  try {
    for await (const response of answer.responses(sse.signal)) {
      if (!sse.message(JSON.stringify(response))) break
    }
  } catch (error) {
    const refused = reply.server.storeHealth.refusal(error)
    if (refused === null) reply.log.error({ err: error }, 'A2A stream failed')
    const failed = refused ?? failure('INTERNAL_ERROR', 'The stream failed on our side; read the task with GetTask.')
    sse.message(JSON.stringify(rpcFailure(answer.id, { code: RpcCode.internalError, message: failed.message, data: apiaryDetails(bodyOf(failed)) })))
  } finally {
    sse.end()
    answer.release()
  }
}

/** The A2A door: the agent card, and the JSON-RPC binding's SendMessage over the execution pipeline. */
const a2aRoutes: FastifyPluginAsync = async (fastify) => {
  const { registry, executor } = fastify
  const { board } = fastify.beeHealth
  const endpoint = new A2aEndpoint({
    executeOrStart: (request, callback) => executor.executeOrStart(request, fastify.runs, callback),
    runs: fastify.runs,
    events: fastify.runEvents,
    pushConfigs: new PushConfigs({ ledger: fastify.ledger, runs: fastify.runs, egress: fastify.catalog.egress }),
    streams: async (beeId) => (await registry.lookup(beeId))?.record.config.executionMode === 'stream',
    places: fastify.openStreams,
    waitSeconds: fastify.config.RUN_WAIT_SECONDS
  })
  // One card per registry and health version, A2A version and origin the service is reached at (bounded: Host is the client's).
  const fresh = () => ({
    version: registry.version,
    health: board.version,
    skills: undefined as Promise<BeeRecord[]> | undefined,
    byOrigin: new PerBaseUrl(),
    legacyByOrigin: new PerBaseUrl()
  })
  let cards = fresh()
  // The skills: the built-in Bees and the most reliable published ones, as llms.txt selects them, in id order.
  const skills = async () => {
    const page = await discover(fastify.catalog.listing, board, fastify.catalog.search,
      { filter: {}, q: undefined, sort: 'reliability', minSuccessRate: undefined, limit: LLMS_SELECTION, cursor: undefined })
    const selected = new Map((page?.bees ?? []).map(({ health: _health, ...record }) => [record.id, record as BeeRecord]))
    for (const { record } of registry.builtins()) selected.set(record.id, record)
    return [...selected.values()].sort((a, b) => a.id < b.id ? -1 : 1)
  }

  fastify.get(AGENT_CARD_PATH, {
    schema: {
      tags: ['a2a'],
      operationId: 'agent-card',
      security: [],
      summary: 'The A2A agent card',
      description: `The built-in Bees and the ${LLMS_SELECTION} most reliable published ones are its skills (any Bee can be sent to; GET /api/bees lists them all); the JSON-RPC endpoint (A2A ${A2A_VERSION} and ${LEGACY_A2A_VERSION}) is POST ${A2A_PATH}. ` +
        `The ${A2A_VERSION} card with A2A-Version: ${A2A_VERSION}, the ${LEGACY_A2A_VERSION} card without. ` +
        'Rebuilt when the registry changes; a strong ETag gives 304 on If-None-Match.',
      response: {
        200: Type.Union([AgentCard, LegacyAgentCard], { description: 'The card.' }),
        304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
        400: BAD_HOST
      }
    }
  }, async (request, reply) => {
    // The URLs in the card are where the client reached us (behind a gateway: its X-Forwarded-Proto and -Host).
    const origin = baseUrlOf(request)
    if (cards.version !== registry.version || cards.health !== board.version) cards = fresh()
    const current = cards
    current.skills ??= skills()
    const listed = await current.skills
    const version = request.headers['a2a-version']
    const card = isLegacyVersion(Array.isArray(version) ? version[0] : version)
      ? current.legacyByOrigin.get(origin, () => JSON.stringify(legacyAgentCard(agentCard(origin, listed))))
      : current.byOrigin.get(origin, () => JSON.stringify(agentCard(origin, listed)))
    reply.header('vary', 'A2A-Version')
    return sendCached(request, reply, card, 'application/json; charset=utf-8')
  })

  fastify.post(A2A_PATH, {
    schema: {
      tags: ['a2a'],
      operationId: 'a2a',
      security: [{}, { walletToken: [] }],
      summary: `A2A ${A2A_VERSION} and ${LEGACY_A2A_VERSION} JSON-RPC endpoint`,
      description: 'SendMessage with one data part {"beeId", "input"} runs the Bee and answers with the task: ' +
        'COMPLETED with the Honey as its artifact, AUTH_REQUIRED when a funded wallet is needed (the 402 body in the status ' +
        'message), REJECTED for another refusal, FAILED when running it failed. An async Bee\'s task is a run (docs/runs.md): ' +
        'SUBMITTED at once with returnImmediately (0.3: blocking false), else answered once ended or after RUN_WAIT_SECONDS; ' +
        'GetTask and CancelTask read and cancel it; SendStreamingMessage and SubscribeToTask answer SSE. ' +
        'Without A2A-Version: A2A 0.3\'s methods and shapes. Pay-per-use Bees take ' +
        'the wallet token from X-Registry-Wallet-Token, else from the request\'s metadata "ai.apiary/walletToken"; ' +
        'Idempotency-Key likewise ("ai.apiary/idempotencyKey"). See docs/agents/a2a.md. ' +
        'JSON-RPC errors come with HTTP 200 unless the HTTP request itself was refused.',
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
  }, async (request, reply) => {
    const version = request.headers['a2a-version'] ?? (request.query as Record<string, unknown>)['A2A-Version']
    const answer = await endpoint.answer(request.body, typeof version === 'string' ? version : undefined, {
      walletToken: walletTokenOf(request),
      idempotencyKey: request.headers[IDEMPOTENCY_HEADER],
      requestId: request.id,
      log: request.log
    })
    if (!('responses' in answer)) return answer
    await streamAnswer(answer, reply)
  })
}

export default a2aRoutes
