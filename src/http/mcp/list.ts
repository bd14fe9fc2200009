import { ProtocolError, ProtocolErrorCode, type ListToolsResult } from '@modelcontextprotocol/server'
import type { ErrorCode } from '../../core/error-catalog.js'
import { isBeeId } from '../../core/schemas.js'
import type { CatalogListing } from '../../core/catalog-listing.js'
import { findBeesTool } from './find-bees.js'
import { beeTool } from './tools.js'

/** Bees per page. Each tool carries both its schemas (a published Bee's may be 64 KB each), so pages stay short. */
const PAGE_SIZE = 50

/** The cursor is the last Bee id of the page, opaque to clients as the spec asks (base64url). */
const encodeCursor = (id: string) => Buffer.from(id).toString('base64url')

function decodeCursor (cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString()
  if (!isBeeId(id) || encodeCursor(id) !== cursor) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'cursor must be the nextCursor of a previous tools/list page.', { code: 'INVALID_CURSOR' satisfies ErrorCode })
  }
  return id
}

/**
 * One tools/list page: the active Bees after the cursor, in id order, PAGE_SIZE at most, read from the
 * catalog at the time of the call (a Bee published a second ago is there, a removed one is gone). The
 * first page starts with find_bees. Paging by id keeps a walk consistent while Bees come and go: each
 * Bee present throughout is listed exactly once.
 */
export async function listTools (listing: CatalogListing, cursor: string | undefined): Promise<ListToolsResult> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor)
  const { records, more } = await listing.list({ after }, PAGE_SIZE)
  const last = records.at(-1)
  return {
    tools: [...(after === undefined ? [findBeesTool] : []), ...records.map(beeTool)],
    ...(more && last !== undefined ? { nextCursor: encodeCursor(last.id) } : {})
  }
}
