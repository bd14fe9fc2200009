import { ProtocolError, ProtocolErrorCode, type ListToolsResult } from '@modelcontextprotocol/server'
import { isBeeId } from '../../core/schemas.js'
import type { Registry } from '../../core/registry.js'
import { findBeesTool } from './find-bees.js'
import { beeTool } from './tools.js'

/** Bees per page. Each tool carries both its schemas (a published Bee's may be 64 KB each), so pages stay short. */
const PAGE_SIZE = 50

/** The cursor is the last Bee id of the page, opaque to clients as the spec asks (base64url). */
const encodeCursor = (id: string) => Buffer.from(id).toString('base64url')

function decodeCursor (cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString()
  if (!isBeeId(id) || encodeCursor(id) !== cursor) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'cursor must be the nextCursor of a previous tools/list page.', { code: 'INVALID_CURSOR' })
  }
  return id
}

/**
 * One tools/list page: the active Bees after the cursor, in id order, PAGE_SIZE at most, read from the
 * registry at the time of the call (a Bee published a second ago is there, a removed one is gone). The
 * first page starts with find_bees. Paging by id keeps a walk consistent while Bees come and go: each
 * Bee present throughout is listed exactly once.
 */
export function listTools (registry: Registry, cursor: string | undefined): ListToolsResult {
  const after = cursor === undefined ? undefined : decodeCursor(cursor)
  const bees = registry.all().filter((bee) => bee.record.status === 'active' && (after === undefined || bee.record.id > after))
  const page = bees.slice(0, PAGE_SIZE)
  const last = page.at(-1)
  return {
    tools: [...(after === undefined ? [findBeesTool] : []), ...page.map(beeTool)],
    ...(bees.length > PAGE_SIZE && last !== undefined ? { nextCursor: encodeCursor(last.record.id) } : {})
  }
}
