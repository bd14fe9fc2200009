import type { CallToolResult, Client, FetchLike, Tool } from '@modelcontextprotocol/client'
import type { McpToolMapping } from './mcp-tool-mapping.js'

type Sdk = typeof import('@modelcontextprotocol/client')

let loading: Promise<Sdk> | undefined

/** Imported with the first MCP upstream, not at start: a start's cost that only MCP imports need. */
const sdk = async (): Promise<Sdk> => await (loading ??= import('@modelcontextprotocol/client'))

/** An MCP server as Apiary reaches it: its URL, and the credential opened, where the mapping puts it. */
export interface McpUpstream {
  serverUrl: string
  credential: { place: McpToolMapping['credential'], value: string } | null
}

export interface McpSessionsOptions {
  /** Every request of every session goes through it: the proxy's pooled, egress-guarded fetch. */
  fetch: FetchLike
  /** How long a connect or a tools/list may take. */
  timeoutMs: number
  /** Told when a server says its tools changed (`notifications/tools/list_changed`). */
  onToolsChanged?: (serverUrl: string) => void
}

/** A call's time limit, and its cancel signal (a run's). */
interface CallLimits {
  timeoutMs: number
  signal?: AbortSignal | undefined
}

/** The headers that carry an upstream's credential. */
function credentialHeaders (upstream: McpUpstream): Record<string, string> {
  const { credential } = upstream
  if (credential === null || credential.place === null) return {}
  return credential.place.in === 'bearer' ? { authorization: `Bearer ${credential.value}` } : { [credential.place.name]: credential.value }
}

/**
 * One MCP client session per upstream (server and credential), opened with its first use and kept: every call of its
 * tools' Bees is a `tools/call` on it, and the server's list_changed notifications arrive on it. A session the server
 * forgot (it restarted, say) is dropped, and the call retried once on a new one.
 */
export class McpSessions {
  readonly #options: McpSessionsOptions
  readonly #sessions = new Map<string, Promise<Client>>()
  /** Closed with the app: a re-read or call still under way opens no session that would outlive it. */
  #closed = false

  constructor (options: McpSessionsOptions) {
    this.#options = options
  }

  /** Every tool the server lists (all pages). */
  async listTools (upstream: McpUpstream): Promise<Tool[]> {
    return await this.#retried(upstream, async (client) => (await client.listTools(undefined, { timeout: this.#options.timeoutMs })).tools)
  }

  /** The tool's answer; a protocol error (an unknown tool, invalid arguments) or a transport failure throws. */
  async callTool (upstream: McpUpstream, name: string, args: Record<string, unknown>, limits: CallLimits): Promise<CallToolResult> {
    return await this.#retried(upstream, async (client) =>
      await client.callTool({ name, arguments: args }, { timeout: limits.timeoutMs, signal: limits.signal }))
  }

  /** Every tool the server lists, on a session of its own closed after: a preview leaves nothing open. */
  async listToolsOnce (upstream: McpUpstream): Promise<Tool[]> {
    const client = await this.#connect(upstream, false)
    try {
      return (await client.listTools(undefined, { timeout: this.#options.timeoutMs })).tools
    } finally {
      await client.close()
    }
  }

  /** Opens the upstream's session now, if it is not open, so its notifications arrive. */
  async open (upstream: McpUpstream): Promise<void> {
    await this.#session(upstream)
  }

  async close (): Promise<void> {
    this.#closed = true
    const sessions = [...this.#sessions.values()]
    this.#sessions.clear()
    await Promise.all(sessions.map(async (session) => await session.then(async (client) => await client.close(), () => {})))
  }

  /**
   * Runs on the upstream's session; once more on a new session when that one is gone: the server forgot it (404, which
   * the protocol says to answer with a new session) or it is closed. Never after another failure, which may have come
   * after the tool ran: a call is not sent twice.
   */
  async #retried<T> (upstream: McpUpstream, run: (client: Client) => Promise<T>): Promise<T> {
    const { SdkError, SdkErrorCode, SdkHttpError } = await sdk()
    const session = this.#session(upstream)
    try {
      return await run(await session)
    } catch (error) {
      const gone = (error instanceof SdkHttpError && error.status === 404) || (error instanceof SdkError && error.code === SdkErrorCode.NotConnected)
      if (!gone) throw error
      this.#drop(upstream, session)
      return await run(await this.#session(upstream))
    }
  }

  #key (upstream: McpUpstream): string {
    return JSON.stringify([upstream.serverUrl, upstream.credential?.value ?? null])
  }

  #drop (upstream: McpUpstream, session: Promise<Client>): void {
    const key = this.#key(upstream)
    if (this.#sessions.get(key) !== session) return
    this.#sessions.delete(key)
    session.then(async (client) => await client.close(), () => {}).catch(() => {})
  }

  #session (upstream: McpUpstream): Promise<Client> {
    const key = this.#key(upstream)
    const open = this.#sessions.get(key)
    if (open !== undefined) return open
    const session = this.#connect(upstream, true)
    this.#sessions.set(key, session)
    // A session that could not open is not kept: the next use tries again.
    session.then((client) => {
      client.onclose = () => { if (this.#sessions.get(key) === session) this.#sessions.delete(key) }
    }, () => { if (this.#sessions.get(key) === session) this.#sessions.delete(key) })
    return session
  }

  /** A new session; `watched`: told of the server's list_changed notifications. */
  async #connect (upstream: McpUpstream, watched: boolean): Promise<Client> {
    const { Client, StreamableHTTPClientTransport } = await sdk()
    if (this.#closed) throw new Error('MCP sessions are closed: the service is stopping')
    const { onToolsChanged } = this.#options
    const client = new Client({ name: 'apiary', version: '1.0.0' }, {
      ...(onToolsChanged === undefined || !watched
        ? {}
        : { listChanged: { tools: { autoRefresh: false, onChanged: () => { onToolsChanged(upstream.serverUrl) } } } })
    })
    const transport = new StreamableHTTPClientTransport(new URL(upstream.serverUrl), {
      fetch: this.#options.fetch,
      requestInit: { headers: credentialHeaders(upstream) }
    })
    await client.connect(transport, { timeout: this.#options.timeoutMs })
    return client
  }
}
