import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { SHARED_RESPONSE } from '../../core/publishing/shared-components.js'
import { ref } from '../../core/schemas.js'
import { baseUrlOf } from '../base-url.js'
import { doorGuard } from '../door-guard.js'
import { IDEMPOTENCY_HEADER } from '../execution-headers.js'
import type { McpEndpoint } from '../mcp/endpoint.js'
import { jsonRpcRefusals, refusalResponses } from '../json-rpc-errors.js'
import { JsonRpcError, JsonRpcRequest, JsonRpcResponse } from '../mcp/json-rpc.js'
import { toWebRequest, sendWebResponse } from '../mcp/web.js'
import { walletTokenOf } from '../wallet-token.js'
import { relayingRunner } from '../../core/streams/stream-call.js'
import { ProgressStream } from '../mcp/progress-stream.js'
import { MCP_OAUTH_PATH, mcpBearerToken, requireMcpBearer } from '../mcp/oauth-bearer.js'

/** POST /mcp: the Model Context Protocol door to the execution pipeline. Every active Bee is a tool. */
const mcpRoutes: FastifyPluginAsync = async (fastify) => {
  const { registry, executor, ledger, config } = fastify
  const streams = { executor, ledger, runMaxSeconds: config.RUN_MAX_SECONDS, holdTimeoutSeconds: config.HOLD_TIMEOUT_SECONDS }
  // The MCP SDK and the door's own modules are a sixth of what a start reads (docs/performance.md): they load on the
  // first MCP request, not at every start of an instance that may never see one.
  let endpoint: Promise<McpEndpoint> | undefined
  const endpointOf = () => (endpoint ??= import('../mcp/endpoint.js').then(({ McpEndpoint }) => new McpEndpoint({
    registry,
    board: fastify.beeHealth.board,
    search: fastify.catalog.search,
    listing: fastify.catalog.listing,
    execute: (request, relay) => executor.execute(request, relay === undefined ? undefined : relayingRunner(streams, relay.events, relay.signal)),
    executeOrStart: (request) => executor.executeOrStart(request, fastify.runs),
    runs: fastify.runs,
    runRetentionHours: fastify.config.RUN_RETENTION_HOURS,
    storeRefusal: (error) => fastify.storeHealth.refusal(error)
  })))
  // A catalog sync may change many Bees at once: their listeners hear of it once. Before the first MCP request there are none.
  let announcing = false
  const unsubscribe = registry.onChange(() => {
    if (announcing || endpoint === undefined) return
    announcing = true
    setImmediate(() => {
      announcing = false
      void endpoint?.then((loaded) => loaded.catalogChanged())
    })
  })
  // Before the server closes: an open listen stream would keep it waiting.
  fastify.addHook('preClose', async () => {
    unsubscribe()
    if (endpoint !== undefined) await (await endpoint).close()
  })

  // The app's refusals, wrapped before the response schema serializes them, with its error body as `data`.
  // The SDK's own answers are text, which this hook never sees.
  fastify.addHook('preSerialization', jsonRpcRefusals((body) => body))

  const schema = (operationId: string, extra: string) => ({
    tags: ['mcp'],
    operationId,
    security: [{}, { walletToken: [] }] as Array<Record<string, string[]>>,
    summary: 'Model Context Protocol (Streamable HTTP, stateless)',
    description: 'Every active Bee as an MCP tool, plus find_bees to search them; as resources, llms.txt (apiary://llms.txt) ' +
      'and each active Bee\'s Markdown page (apiary://bees/{id}). Protocol versions 2025-06-18, ' +
        '2025-11-25 (initialize handshake, no session) and 2026-07-28 (per-request envelope); answers are JSON, never ' +
        'an SSE stream (except subscriptions/listen, and a stream Bee\'s tools/call with a progressToken: notifications/progress, then the result). Pay-per-use Bees take the wallet token from X-Registry-Wallet-Token, ' +
        'else from the call\'s _meta "ai.apiary/walletToken"; Idempotency-Key likewise ("ai.apiary/idempotencyKey"). ' +
        'GET and DELETE are not offered (405): there are no sessions and no server-initiated streams. ' +
        'An OAuth access token in Authorization: Bearer pays like a wallet token (docs/agents/oauth.md). ' +
        'An async Bee\'s tools/call with params.task is a 2025-11-25 task: tasks/get, tasks/result, tasks/cancel, tasks/list.' + extra,
    // Titled, the document lists the request once for both doors (validation is the SDK's: see validatorCompiler).
    body: { ...JsonRpcRequest, title: 'McpRequest' },
    // /mcp and /mcp/oauth answer alike: each answer is listed once in the document (a shared shape's by its name).
    response: {
      200: { ...JsonRpcResponse, [SHARED_RESPONSE]: 'McpResponse' },
      202: { type: 'null', description: 'A notification was accepted; there is nothing to answer.' },
      400: ref(JsonRpcError, { description: 'Not JSON (-32700), not a JSON-RPC message (-32600), or an unsupported protocol version.' }),
      401: ref(JsonRpcError, { description: 'The Bearer token is not an access token for this endpoint (TOKEN_INVALID, TOKEN_EXPIRED), or is missing, on /mcp/oauth (TOKEN_REQUIRED); WWW-Authenticate says where its metadata is.' }),
      406: ref(JsonRpcError, { description: 'Accept does not include application/json.' }),
      ...refusalResponses(JsonRpcError)
    }
  })
  const options = {
    // The SDK checks the message and answers in JSON-RPC (-32600, -32601, -32602): route validation
    // would answer in the app's error shape instead. The schema above documents it.
    validatorCompiler: () => () => true
  }
  const guard = doorGuard(fastify.config)
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const bearer = await mcpBearerToken(request, reply, fastify.walletTokens.signer)
    // Made only for a call that asks for progress, so a plain call's answer costs nothing more.
    let stream: ProgressStream | undefined
    const context = {
      walletToken: walletTokenOf(request) ?? bearer,
      idempotencyKey: request.headers[IDEMPOTENCY_HEADER],
      requestId: request.id,
      log: request.log,
      baseUrl: () => baseUrlOf(request),
      progress: () => (stream ??= new ProgressStream(reply))
    }
    const mcp = await endpointOf()
    const answer = await mcp.answer(request.headers, request.body, context)
    if (answer !== undefined && stream?.answer(answer) === true) return reply
    // Serialized as the SDK serializes its answers (JSON.stringify): a string passes the route's serializer by.
    if (answer !== undefined) return await reply.type('application/json').send(JSON.stringify(answer))
    return await sendWebResponse(reply, await mcp.serve(toWebRequest(request, request.body), request.body, context))
  }
  fastify.post('/mcp', { ...options, schema: schema('mcp', ''), onRequest: guard }, serve)
  fastify.post(MCP_OAUTH_PATH, {
    ...options,
    schema: schema('mcp-oauth', ' This door requires the Bearer token: without one it answers 401 with WWW-Authenticate, which starts an MCP client\'s OAuth flow.'),
    onRequest: [guard, requireMcpBearer]
  }, serve)
}

export default mcpRoutes
