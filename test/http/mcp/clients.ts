import type { AddressInfo } from 'node:net'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance } from 'fastify'
import { build, type BuildOptions } from '../../helper.js'

interface Teardown { teardown (fn: () => unknown): void }

/** The app listening on 127.0.0.1 (MCP clients speak real HTTP), and the URL of its MCP endpoint. */
export async function listening (t: Teardown, options: BuildOptions = {}): Promise<{ app: FastifyInstance, url: URL }> {
  const app = await build(t, options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url: new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`) }
}

/** What the tests ask of either SDK's client. */
export interface McpClient {
  listTools (params?: { cursor?: string }): Promise<{ tools: Array<Record<string, any>>, nextCursor?: string | undefined }>
  callTool (params: { name: string, arguments?: Record<string, unknown>, _meta?: Record<string, unknown> }): Promise<Record<string, any>>
  listResources (params?: { cursor?: string }): Promise<{ resources: Array<Record<string, any>>, nextCursor?: string | undefined }>
  listResourceTemplates (): Promise<{ resourceTemplates: Array<Record<string, any>> }>
  readResource (params: { uri: string }): Promise<{ contents: Array<Record<string, any>> }>
  close (): Promise<void>
}

export interface ConnectedClient {
  client: McpClient
  /** The protocol version the client and the server agreed on. */
  version: string | undefined
  /** The JSON-RPC method of every request the client sent, in order. */
  sent: string[]
}

/**
 * A fetch that records the method of each JSON-RPC request, and rewrites an initialize to ask for
 * `version` when given (the 1.x client always asks for 2025-11-25).
 */
function recording (sent: string[], version?: string): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) as { method?: string, params?: Record<string, unknown> } : undefined
    if (body?.method !== undefined) sent.push(body.method)
    if (body?.method === 'initialize' && version !== undefined) {
      init = { ...init, body: JSON.stringify({ ...body, params: { ...body.params, protocolVersion: version } }) }
    }
    return await fetch(input, init)
  }
}

/**
 * The SDK clients Apiary is tested with: the 2.x client as it connects by default (2025 handshake) and
 * pinned to the 2026-07-28 revision, and the 1.x client (2025-11-25, and made to ask for 2025-06-18).
 */
export const clients: Record<string, (url: URL, headers?: Record<string, string>) => Promise<ConnectedClient>> = {
  async 'v2 client, 2025 handshake' (url, headers = {}) {
    const sent: string[] = []
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: recording(sent) })
    const client = new Client({ name: 'apiary-test', version: '1.0.0' })
    await client.connect(transport)
    return { client: client as unknown as McpClient, version: client.getNegotiatedProtocolVersion(), sent }
  },
  async 'v2 client, 2026-07-28' (url, headers = {}) {
    const sent: string[] = []
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: recording(sent) })
    const client = new Client({ name: 'apiary-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(transport)
    return { client: client as unknown as McpClient, version: client.getNegotiatedProtocolVersion(), sent }
  },
  async 'v1 client, 2025-11-25' (url, headers = {}) {
    const sent: string[] = []
    const transport = new V1Transport(url, { requestInit: { headers }, fetch: recording(sent) })
    const client = new V1Client({ name: 'apiary-test', version: '1.0.0' })
    await client.connect(transport)
    return { client: client as unknown as McpClient, version: transport.protocolVersion, sent }
  },
  async 'v1 client, 2025-06-18' (url, headers = {}) {
    const sent: string[] = []
    const transport = new V1Transport(url, { requestInit: { headers }, fetch: recording(sent, '2025-06-18') })
    const client = new V1Client({ name: 'apiary-test', version: '1.0.0' })
    await client.connect(transport)
    return { client: client as unknown as McpClient, version: transport.protocolVersion, sent }
  }
}

/** Every page of tools/list, followed through nextCursor (the 2.x client follows it itself). */
export async function allTools (client: McpClient): Promise<Array<Record<string, any>>> {
  const tools: Array<Record<string, any>> = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor })
    tools.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return tools
}
