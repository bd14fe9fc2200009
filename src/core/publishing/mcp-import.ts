import type { Tool } from '@modelcontextprotocol/client'
import type { Static } from 'typebox'
import { failure } from '../errors.js'
import type { Caller } from '../principal.js'
import type { ManagedBee } from '../schemas.js'
import { type EgressPolicy, refusedByGuard } from './egress.js'
import { beeIdOf, checkOf, chosen, type IdOptions, idProblem, type ImportCheck, pricingOf, publishAll, requirePublisher, schemaCheck } from './import-checks.js'
import { isObject, type JsonObject } from './json-schema.js'
import type { McpSessions, McpUpstream } from './mcp-sessions.js'
import { CONTENT_RESULT, type McpToolMapping } from './mcp-tool-mapping.js'
import { toInputSchema, toOutputSchema } from './schema-conversion.js'

/** What a preview or an apply of an MCP server's tools is given. */
export interface McpImportRequest {
  /** The server's Streamable HTTP endpoint. */
  serverUrl: string
  /** Prepended to every id made from a tool's name. */
  idPrefix?: string | undefined
  /** The server's API key or bearer token. */
  credential?: string | undefined
  /** The header an API key goes in; absent: the credential is a bearer token. */
  credentialHeader?: string | undefined
}

/** A tool to import, by name, with its price. */
export interface ChosenTool {
  tool?: string | undefined
  id?: string | undefined
  priceMicros: number
}

export interface McpImportApplication extends McpImportRequest {
  tools: ChosenTool[]
  category?: string | undefined
}

/** A Bee a tool would become. */
export interface McpCandidate {
  id: string
  name: string
  description: string
  tool: string
  inputSchema: JsonObject
  outputSchema: JsonObject
  mapping: McpToolMapping
  checks: ImportCheck[]
  importable: boolean
}

export interface McpImportOptions extends IdOptions {
  egress: Pick<EgressPolicy, 'check'>
  sessions: Pick<McpSessions, 'listToolsOnce'>
}

/** What a tool's Bee is made of, as the server lists it: the import's and the re-read's (see McpUpstreamWatch) one reading. */
export function toolShape (tool: Tool, serverUrl: string, credential: McpToolMapping['credential']): {
  description: string
  inputSchema: object
  outputSchema: object
  mapping: McpToolMapping
} {
  const structured = isObject(tool.outputSchema)
  return {
    description: (tool.description ?? tool.title ?? `The ${tool.name} tool of ${serverUrl}.`).slice(0, 4000) || tool.name,
    inputSchema: tool.inputSchema,
    outputSchema: isObject(tool.outputSchema) ? tool.outputSchema : structuredClone(CONTENT_RESULT),
    // `kind` first: the stored text starts with it (MCP_MAPPING_START).
    mapping: { kind: 'mcp', serverUrl, tool: tool.name, output: structured ? 'structured' : 'content', credential }
  }
}

/** Where the request's credential goes. */
export const credentialPlace = (request: Pick<McpImportRequest, 'credential' | 'credentialHeader'>): McpToolMapping['credential'] =>
  request.credential === undefined ? null : request.credentialHeader === undefined ? { in: 'bearer' } : { in: 'header', name: request.credentialHeader.toLowerCase() }

/**
 * Turns an MCP server's tools into published Bees whose calls are the tool's `tools/call` on a pooled session (see
 * RemoteBeeProxy.callTool). A preview lists what each tool would become and the checks it passes; an apply publishes
 * the chosen ones, owned by the publisher, through the publishing use case.
 */
export class McpImport {
  readonly #options: McpImportOptions

  constructor (options: McpImportOptions) {
    this.#options = options
  }

  async preview (caller: Caller, request: McpImportRequest): Promise<McpCandidate[]> {
    const tools = await this.#tools(request)
    const place = credentialPlace(request)
    const candidates = await Promise.all(tools.map(async (tool) => await this.#candidate(request, tool, place)))
    caller.log.info({ tools: candidates.length }, 'MCP import previewed')
    return candidates
  }

  async apply (caller: Caller, request: McpImportApplication): Promise<Array<Static<typeof ManagedBee>>> {
    requirePublisher(caller)
    const candidates = await this.preview(caller, request)
    const picked = chosen(request.tools, (choice) => ({
      found: candidates.find((candidate) => choice.tool !== undefined && candidate.tool === choice.tool),
      named: `Tool ${choice.tool ?? '?'}`,
      unknown: choice.tool === undefined ? 'Choose each tool of an MCP server by its name (tool).' : `The MCP server has no tool ${choice.tool}.`
    }))
    return await publishAll(this.#options.publishing, caller, picked.map(({ candidate, priceMicros }) => ({
      id: candidate.id,
      name: candidate.name,
      description: candidate.description,
      category: request.category ?? 'mcp',
      endpoint: candidate.mapping.serverUrl,
      inputSchema: candidate.inputSchema,
      outputSchema: candidate.outputSchema,
      pricing: pricingOf(priceMicros),
      upstream: { mapping: candidate.mapping, credential: request.credential ?? null }
    })))
  }

  async #candidate (request: McpImportRequest, tool: Tool, place: McpToolMapping['credential']): Promise<McpCandidate> {
    const id = beeIdOf(request.idPrefix ?? '', tool.name)
    const shape = toolShape(tool, request.serverUrl, place)
    const input = schemaCheck('inputSchema', () => toInputSchema(shape.inputSchema))
    const output = schemaCheck('outputSchema', () => toOutputSchema(shape.outputSchema))
    const checks = [checkOf('id', await idProblem(this.#options, id, 'the tool')), input.check, output.check]
    return {
      id,
      name: (tool.title ?? tool.annotations?.title ?? tool.name).slice(0, 100),
      description: shape.description,
      tool: tool.name,
      inputSchema: input.schema ?? (shape.inputSchema as JsonObject),
      outputSchema: output.schema ?? (shape.outputSchema as JsonObject),
      mapping: shape.mapping,
      checks,
      importable: checks.every((check) => check.passed)
    }
  }

  /** The server's tools, read through the egress guard on a session closed after. */
  async #tools (request: McpImportRequest): Promise<Tool[]> {
    const problem = await this.#options.egress.check(request.serverUrl)
    if (problem !== null) throw failure('IMPORT_SOURCE_FORBIDDEN', problem.replace(/^endpoint/, 'the MCP server URL'))
    const place = credentialPlace(request)
    const upstream: McpUpstream = { serverUrl: request.serverUrl, credential: request.credential === undefined ? null : { place, value: request.credential } }
    try {
      return await this.#options.sessions.listToolsOnce(upstream)
    } catch (error) {
      if (refusedByGuard(error)) throw failure('IMPORT_SOURCE_FORBIDDEN', 'the MCP server URL resolves to a forbidden address')
      throw failure('IMPORT_SOURCE_UNREADABLE', `${request.serverUrl} could not be read as a Streamable HTTP MCP server: ${(error as Error).message.slice(0, 300)}`)
    }
  }
}
