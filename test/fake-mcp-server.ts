import { randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'

export const MCP_TOKEN = 'mcp_live_token_0123456789'

/** A tool the fake serves: its listing, and what a call of it answers. */
export interface FakeTool {
  tool: Tool
  answer: (args: Record<string, unknown>) => { structuredContent?: Record<string, unknown>, content: Array<{ type: 'text', text: string }>, isError?: boolean }
}

export interface FakeMcpServer {
  /** The Streamable HTTP endpoint. */
  url: string
  /** The tools listed and served; change it, then call toolsChanged(). */
  tools: FakeTool[]
  /** Every tools/call received: the tool, its arguments and the request's headers. */
  calls: Array<{ name: string, arguments: Record<string, unknown>, headers: IncomingHttpHeaders }>
  /** Sessions opened so far (a client's initialize). */
  sessionsOpened: number
  /** Tells every open session its tools changed (notifications/tools/list_changed). */
  toolsChanged (): Promise<void>
  /** Forgets every session, as a restarted server does: their next request gets 404. */
  forgetSessions (): Promise<void>
  close (): Promise<void>
}

/** The tools a fresh fake serves: `add` declares an outputSchema, `echo` answers with text content only. */
export const defaultTools = (): FakeTool[] => [
  {
    tool: {
      name: 'add',
      title: 'Add two numbers',
      description: 'Adds a and b.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }
    },
    answer: (args) => {
      const sum = Number(args.a) + Number(args.b)
      return { structuredContent: { sum }, content: [{ type: 'text', text: String(sum) }] }
    }
  },
  {
    tool: {
      name: 'echo',
      description: 'Says the text back.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
    },
    answer: (args) => ({ content: [{ type: 'text', text: String(args.text) }] })
  }
]

/**
 * A Streamable HTTP MCP server on 127.0.0.1, built on the SDK's server (stateful sessions, so notifications reach a
 * client's open stream), that wants `Authorization: Bearer MCP_TOKEN`.
 */
export async function startFakeMcpServer (): Promise<FakeMcpServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport, server: Server }>()
  const fake: FakeMcpServer = {
    url: '',
    tools: defaultTools(),
    calls: [],
    sessionsOpened: 0,
    toolsChanged: async () => { await Promise.all([...sessions.values()].map(async ({ server }) => await server.sendToolListChanged())) },
    forgetSessions: async () => {
      const open = [...sessions.values()]
      sessions.clear()
      await Promise.all(open.map(async ({ transport }) => await transport.close()))
    },
    close: async () => {}
  }

  const newSession = (): StreamableHTTPServerTransport => {
    const server = new Server({ name: 'fake-tools', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } })
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: fake.tools.map((served) => served.tool) }))
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const served = fake.tools.find((candidate) => candidate.tool.name === request.params.name)
      const args = request.params.arguments ?? {}
      fake.calls.push({ name: request.params.name, arguments: args, headers: (extra.requestInfo?.headers ?? {}) as IncomingHttpHeaders })
      if (served === undefined) return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true }
      return served.answer(args)
    })
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        fake.sessionsOpened++
        sessions.set(id, { transport, server })
      }
    })
    server.connect(transport).catch(() => {})
    return transport
  }

  const http = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${MCP_TOKEN}`) {
      return response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no token' }))
    }
    const id = request.headers['mcp-session-id']
    const open = typeof id === 'string' ? sessions.get(id)?.transport : undefined
    if (typeof id === 'string' && open === undefined) {
      return response.writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }))
    }
    (open ?? newSession()).handleRequest(request, response).catch(() => { if (!response.headersSent) response.writeHead(500).end() })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  fake.close = async () => {
    await fake.forgetSessions()
    http.closeAllConnections()
    await new Promise<void>((resolve) => http.close(() => resolve()))
  }
  return fake
}
