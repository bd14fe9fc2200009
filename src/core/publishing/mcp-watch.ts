import type { Logger } from '../logger.js'
import type { CatalogBee, CatalogRepository } from '../ledger/catalog/catalog-repository.js'
import { toolShape } from './mcp-import.js'
import type { McpSessions, McpUpstream } from './mcp-sessions.js'
import { isMcpTool, type McpToolMapping } from './mcp-tool-mapping.js'
import type { PublishingService } from './service.js'

export interface McpWatchOptions {
  store: Pick<CatalogRepository, 'mcpToolBees'>
  sessions: Pick<McpSessions, 'listTools'>
  publishing: Pick<PublishingService, 'followUpstream'>
  log: Logger
}

/** The Bees of one upstream (a server, with one credential), and how to reach it. */
interface UpstreamBees {
  upstream: McpUpstream
  bees: Array<{ id: string, mapping: McpToolMapping }>
}

function byUpstream (bees: CatalogBee[], serverUrl: string | undefined): UpstreamBees[] {
  const groups = new Map<string, UpstreamBees>()
  for (const bee of bees) {
    const mapping = bee.upstreamMapping
    if (mapping == null || !isMcpTool(mapping) || (serverUrl !== undefined && mapping.serverUrl !== serverUrl)) continue
    const value = bee.secrets().upstreamCredential
    const key = JSON.stringify([mapping.serverUrl, value])
    const credential = value === null ? null : { place: mapping.credential, value }
    const group = groups.get(key) ?? { upstream: { serverUrl: mapping.serverUrl, credential }, bees: [] }
    group.bees.push({ id: bee.id, mapping })
    groups.set(key, group)
  }
  return [...groups.values()]
}

/**
 * Keeps imported MCP tools' Bees in line with their servers: each server is re-read when it says its tools changed
 * (notifications/tools/list_changed, on the pooled session) and every MCP_REREAD_SECONDS. A tool gone makes its Bee
 * inactive; a changed one makes a new version (a new major when it breaks callers); see PublishingService.followUpstream.
 * Every instance re-reads: the changes are the same, and a version already made is not made again.
 */
export class McpUpstreamWatch {
  readonly #options: McpWatchOptions
  /** Re-reads run one after another: a notification during the schedule's waits for it. */
  #running: Promise<void> = Promise.resolve()
  #timer: NodeJS.Timeout | undefined

  constructor (options: McpWatchOptions) {
    this.#options = options
  }

  /** Re-reads every imported server now (opening their sessions, so their notifications arrive), then every `seconds` (0: never). */
  start (seconds: number): void {
    this.changed()
    if (seconds === 0) return
    this.#timer = setInterval(() => { this.changed() }, seconds * 1000)
    this.#timer.unref()
  }

  /** Queues a re-read of one server (its tools changed), or of all. */
  changed (serverUrl?: string): void {
    this.#running = this.#running.then(async () => await this.reread(serverUrl)).catch((error: unknown) => {
      this.#options.log.warn({ err: error }, 'MCP servers could not be re-read')
    })
  }

  /** Waits for the queued re-reads. */
  async settled (): Promise<void> {
    await this.#running
  }

  /** Brings the Bees of every imported server (or of the one at serverUrl) in line with the tools it lists now. */
  async reread (serverUrl?: string): Promise<void> {
    const { store, sessions, publishing, log } = this.#options
    for (const { upstream, bees } of byUpstream(await store.mcpToolBees(), serverUrl)) {
      let tools: Awaited<ReturnType<McpSessions['listTools']>>
      try {
        tools = await sessions.listTools(upstream)
      } catch (error) {
        // A server that cannot be reached now has not removed its tools: its Bees stay as they are (their calls fail).
        log.warn({ err: error, serverUrl: upstream.serverUrl }, 'MCP server could not be re-read')
        continue
      }
      for (const { id, mapping } of bees) {
        const tool = tools.find((listed) => listed.name === mapping.tool)
        try {
          const now = tool === undefined ? { gone: true } : { gone: false, ...toolShape(tool, mapping.serverUrl, mapping.credential) }
          await publishing.followUpstream(log, id, now)
        } catch (error) {
          log.warn({ err: error, beeId: id }, 'imported Bee could not follow its MCP tool')
        }
      }
    }
  }

  close (): void {
    clearInterval(this.#timer)
  }
}
