import type { Expression, QueryCreator, Selectable } from 'kysely'
import type { Tables } from '../tables.js'

/** A published Bee's row as stored, its plan as JSON text and its signing secrets sealed; its version apart. */
export type SealedRow = Omit<Selectable<Tables['published_bees']>, 'change_seq' | 'plan'> & { plan: string | null }

/** Thrown inside an insert's transaction when the id is taken, to roll back what it wrote before it knew. */
class IdTaken extends Error {}

/**
 * Inserts the Bee's row and returns the version it was stamped with, unless its id is taken: then the transaction is
 * rolled back, its search row with it.
 */
export async function insertRow (query: QueryCreator<Tables>, row: SealedRow, version: Expression<number>): Promise<number> {
  const inserted = await query.insertInto('published_bees').values({ ...row, change_seq: version })
    .onConflict((oc) => oc.column('id').doNothing()).returning('change_seq').executeTakeFirst()
  if (inserted === undefined) throw new IdTaken()
  return Number(inserted.change_seq)
}

/** An insert's outcome once its transaction has ended: what it returned, or 'taken'. */
export async function inserting<T> (run: () => Promise<T>): Promise<T | 'taken'> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof IdTaken) return 'taken'
    throw error
  }
}
