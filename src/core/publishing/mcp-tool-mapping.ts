import type { RequestMapping } from './request-mapping.js'

/**
 * How an imported MCP tool's Bee is called: `tools/call` of `tool` on the Streamable HTTP server at `serverUrl`, with the
 * upstream credential (stored apart, sealed) as a bearer token or in a header. Stored with the Bee like a RequestMapping.
 */
export interface McpToolMapping {
  /** First, so a query can tell an MCP tool's stored mapping by its start (see CatalogRepository.mcpToolBees). */
  kind: 'mcp'
  serverUrl: string
  tool: string
  /** `structured`: the tool declares an outputSchema, and its structuredContent is the result; else the CONTENT_RESULT shape. */
  output: 'structured' | 'content'
  credential: { in: 'header', name: string } | { in: 'bearer' } | null
}

/** How an imported Bee's calls reach its upstream: an OpenAPI operation's request, or an MCP tool's call. */
export type UpstreamMapping = RequestMapping | McpToolMapping

export const isMcpTool = (mapping: UpstreamMapping): mapping is McpToolMapping => 'kind' in mapping && mapping.kind === 'mcp'

/** The stored text every MCP tool's mapping starts with (JSON keeps `kind` first, as the mapping is built). */
export const MCP_MAPPING_START = '{"kind":"mcp",'

/**
 * The result of a tool without an outputSchema: its content blocks as MCP returns them, and their text joined, which
 * is what most tools answer with. Documented in docs/publishers.md.
 */
export const CONTENT_RESULT = {
  type: 'object',
  description: 'The MCP tool\'s answer: its content blocks, and the text of its text blocks joined by newlines.',
  properties: {
    text: { type: 'string', description: 'The text blocks\' text, joined by newlines ("" when there are none).' },
    content: { type: 'array', items: { type: 'object' }, description: 'The tool\'s content blocks (text, image, audio, resource links), as MCP returns them.' }
  },
  required: ['text', 'content']
} as const
