import type { IncomingHttpHeaders } from 'node:http'
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type JSONRPCResponse, type McpHttpHandler } from '@modelcontextprotocol/server'
import { callTool, type CallContext } from './call.js'
import { directRequest } from './direct.js'
import { ExchangeTransport } from './exchange-transport.js'
import type { McpOptions } from './options.js'
import { mcpServer } from './server.js'
import { callToolAsTask } from './tasks.js'
import { answerToolsCall, taskToolsCall, toolsCall } from './tools-call.js'

/**
 * Streamable HTTP, stateless, answered with JSON, for both protocol eras, except where a call's progress is streamed
 * (its notifications/progress, then its result, as Server-Sent Events: progress-stream.ts, and the SDK's own on 2026-07-28). The SDK's handler serves the
 * 2026-07-28 revision (the per-request envelope); 2025-era requests (initialize, then requests without
 * the envelope) go to a fresh server on a session-less transport per request, in JSON mode: the SDK's
 * own 2025 fallback would answer them as an SSE stream.
 */
export class McpEndpoint {
  readonly #options: McpOptions
  /** What each in-flight request carries for its calls, found again by the server factory. */
  readonly #contexts = new WeakMap<Request, CallContext>()
  readonly #modern: McpHttpHandler

  constructor (options: McpOptions) {
    this.#options = options
    // 'auto' answers with one JSON body unless a handler sends a message before its result: a stream Bee's
    // notifications/progress, when its call asked for them.
    this.#modern = createMcpHandler(({ era, requestInfo }) => {
      const context = requestInfo === undefined ? undefined : this.#contexts.get(requestInfo)
      if (context === undefined) throw new Error('MCP request without its context')
      return mcpServer(this.#options, context, era)
    }, { legacy: 'reject', responseMode: 'auto' })
  }

  /**
   * The answer (HTTP 200, in JSON) to a 2025-era request that the SDK's stateless transport would answer
   * so. A plain tools/call, the call agents make most, is answered by the tool-call code itself, written
   * as the SDK's server writes it, without the SDK's schema checks and a server built for it
   * (tools-call.ts), and so is a task-augmented one (tasks.ts); any other request goes to a fresh server through a transport of one exchange: the
   * same server and protocol handling, without a web Request and Response around them. Undefined for
   * every other request, which `serve` answers.
   */
  async answer (headers: IncomingHttpHeaders, message: unknown, context: CallContext): Promise<JSONRPCResponse | undefined> {
    const call = toolsCall(headers, message)
    if (call !== undefined) return await answerToolsCall(call.id, () => callTool(this.#options, context, call.params, 'legacy'))
    const taskCall = taskToolsCall(headers, message)
    if (taskCall !== undefined) return await answerToolsCall(taskCall.id, () => callToolAsTask(this.#options, context, taskCall.params, 'legacy'))
    const request = directRequest(headers, message)
    if (request === undefined) return undefined
    const transport = new ExchangeTransport()
    // Nothing to close afterwards: the server holds no stream and no timer, and goes with the exchange.
    await mcpServer(this.#options, context, 'legacy').connect(transport)
    return await transport.exchange(request)
  }

  async serve (request: Request, message: unknown, context: CallContext): Promise<Response> {
    if (await isLegacyRequest(request, message)) return await this.#serveLegacy(request, message, context)
    this.#contexts.set(request, context)
    return await this.#modern.fetch(request, { parsedBody: message })
  }

  async #serveLegacy (request: Request, message: unknown, context: CallContext): Promise<Response> {
    const server = mcpServer(this.#options, context, 'legacy')
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    try {
      return await transport.handleRequest(request, { parsedBody: message })
    } finally {
      await server.close()
    }
  }

  /** Tells the open subscriptions/listen streams (2026-07-28) that the catalog, so the tool and resource lists, changed. */
  catalogChanged (): void {
    this.#modern.notify.toolsChanged()
    this.#modern.notify.resourcesChanged()
  }

  /** Ends the open subscriptions/listen streams, so that the server can close. */
  close (): Promise<void> {
    return this.#modern.close()
  }
}
