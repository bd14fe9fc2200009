import type { Tool } from '@modelcontextprotocol/server'
import type { BeeRecord } from '../../core/schemas.js'
import { toToolSchema } from './json-schema.js'
import { META } from './meta.js'

type ToolSchema = Tool['inputSchema']

/**
 * A Bee as an MCP tool. A paid call moves money out of the caller's wallet, so a paid Bee is not
 * read-only (a client may run read-only tools without asking) and not idempotent (every call without
 * an Idempotency-Key charges again); a free Bee changes nothing. Remote (published) Bees reach a
 * publisher's server: an open world.
 */
export function beeTool (record: BeeRecord): Tool {
  const paid = record.pricing.type !== 'free'
  return {
    name: record.id,
    title: record.name,
    description: record.description,
    inputSchema: toToolSchema(record.inputSchema as never) as ToolSchema,
    outputSchema: toToolSchema(record.outputSchema as never) as ToolSchema,
    annotations: {
      title: record.name,
      readOnlyHint: !paid,
      destructiveHint: false,
      idempotentHint: !paid,
      openWorldHint: record.type === 'remote'
    },
    // An async Bee's call may be a task (2025-11-25), or a plain call answered within the request.
    ...(record.config.executionMode === 'sync' ? {} : { execution: { taskSupport: 'optional' as const } }),
    _meta: {
      [META.pricing]: { ...record.pricing },
      [META.status]: record.status,
      [META.category]: record.category,
      [META.colony]: record.colony,
      [META.beeVersion]: record.version
    }
  }
}
