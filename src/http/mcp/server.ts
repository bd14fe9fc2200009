import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server'
import { bodyOf } from '../../core/errors.js'
import { WALLET_HEADER_NAME } from '../../core/schemas.js'
import { callTool, type CallContext } from './call.js'
import type { McpOptions } from './options.js'
import type { Era } from './errors.js'
import { listTools } from './list.js'
import { BEE_TEMPLATE, listResources, LLMS_URI, readResource, resourceTemplates } from './resources.js'
import { TASK_PARAMS, taskMethods } from './tasks.js'

const instructions = 'Every Bee of the Apiary registry is a tool named by its id. Call find_bees to search the catalog ' +
  `(by words, category, price or recent success rate), then call the Bee. Pay-per-use Bees need a funded wallet token in the ${WALLET_HEADER_NAME} ` +
  'HTTP header (or in the call\'s _meta as "ai.apiary/walletToken"); their price is in each tool\'s _meta "ai.apiary/pricing". ' +
  `Resources: ${LLMS_URI} (the catalog for a language model) and each Bee's Markdown page at ${BEE_TEMPLATE}.`

/**
 * The MCP server for one HTTP request (stateless: nothing outlives the exchange, so any instance can
 * answer any request). The low-level server, since Bees carry JSON Schema rather than Zod.
 */
export function mcpServer (options: McpOptions, context: CallContext, era: Era): Server {
  const { registry, board, search, listing } = options
  const server = new Server({ name: 'apiary', title: 'Apiary', version: '1.0.0' }, {
    // 2025-era requests come without a session, so there is no stream to announce a change on; on
    // 2026-07-28 a client opens one with subscriptions/listen.
    capabilities: {
      tools: { listChanged: era === 'modern' },
      resources: { listChanged: era === 'modern' },
      // 2025-11-25's tasks: an async Bee's tools/call as a task. The 2026-07-28 revision moved tasks to an extension, not served.
      ...(era === 'legacy' ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {})
    },
    instructions,
    // The list is the same for every caller, and changes whenever a Bee is published, changed or removed.
    cacheHints: {
      'tools/list': { ttlMs: 0, cacheScope: 'public' },
      'resources/list': { ttlMs: 0, cacheScope: 'public' },
      'resources/templates/list': { ttlMs: 0, cacheScope: 'public' }
    }
  })
  // The ledger away is -32603 with the 503's body as its data, as a failure of ours is (errors.ts), not the driver's words.
  const guarded = async <R>(work: Promise<R>): Promise<R> => await work.catch((error: unknown) => {
    const refused = options.storeRefusal(error)
    throw refused === null ? error : new ProtocolError(ProtocolErrorCode.InternalError, refused.message, bodyOf(refused))
  })
  server.setRequestHandler('tools/list', (request) => guarded(listTools(listing, request.params?.cursor)))
  server.setRequestHandler('resources/list', (request) => guarded(listResources(listing, board, search, request.params?.cursor)))
  server.setRequestHandler('resources/templates/list', () => resourceTemplates)
  server.setRequestHandler('resources/read', ({ params }) => guarded(readResource(registry, listing, board, search, params.uri, context.baseUrl)))
  // 2026-07-28: the SDK's transport answers in SSE once a notification comes before the result. On the SDK's 2025 ways
  // (answered in JSON) there is nowhere to send one; the endpoint's own way streams them itself (progress-stream.ts).
  server.setRequestHandler('tools/call', ({ params }, ctx) => callTool(options, {
    ...context,
    progress: era === 'modern'
      ? () => ({ notify: (progress) => ctx.mcpReq.notify({ method: 'notifications/progress', params: progress }), signal: ctx.mcpReq.signal })
      : undefined
  }, params, era))
  if (era === 'legacy') {
    const tasks = taskMethods(options, context, era)
    server.setRequestHandler('tasks/get', { params: TASK_PARAMS['tasks/get'] }, (params) => guarded(tasks.get(params)))
    server.setRequestHandler('tasks/result', { params: TASK_PARAMS['tasks/result'] }, (params) => guarded(tasks.result(params)))
    server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS['tasks/cancel'] }, (params) => guarded(tasks.cancel(params)))
    server.setRequestHandler('tasks/list', { params: TASK_PARAMS['tasks/list'] }, (params) => guarded(tasks.list(params)))
  }
  return server
}
