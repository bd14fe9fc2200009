import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Each publisher's count of published Bees, kept by triggers on published_bees, for the quota (PUBLISHER_MAX_BEES).
 * Counting the owner's rows at every publish took time in proportion to them (23 ms for a publisher of 90,000 Bees
 * on PostgreSQL), and had to be its own statement, taken after the owner's lock: a statement's snapshot is taken
 * when it starts, so a count inside the locking statement would miss a publish committed while it waited. Kept on
 * the owner's row, the count is read again with the row when the lock is granted, so on PostgreSQL a publish is one
 * statement, which commits by itself (see sqlCatalogRepository). Triggers, not the service, keep it: every way a row
 * is written (a bulk load with COPY, an operator's SQL) counts. PostgreSQL counts once per statement (a COPY of
 * 90,000 rows is one update of its owner's row, not 90,000 versions of it); a change of owner, which the service
 * never makes, moves a Bee between counts.
 */
export function catalogOwnerCountMigration (dialect: Dialect): Migration {
  return {
    async up (db: Kysely<any>) {
      await db.schema.alterTable('publishers').addColumn('bee_count', 'integer', (c) => c.notNull().defaultTo(0)).execute()
      await sql`UPDATE publishers SET bee_count = (SELECT count(*) FROM published_bees WHERE owner_id = publishers.id)`.execute(db)
      if (dialect === 'postgres') {
        // SET search_path FROM CURRENT: the function finds this schema's publishers whoever's session fires it.
        await sql`CREATE FUNCTION published_bees_count_owners() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
          BEGIN
            IF TG_OP = 'INSERT' THEN
              UPDATE publishers SET bee_count = bee_count + counted.bees
                FROM (SELECT owner_id, count(*) AS bees FROM added GROUP BY owner_id) AS counted WHERE publishers.id = counted.owner_id;
            ELSE
              UPDATE publishers SET bee_count = bee_count - counted.bees
                FROM (SELECT owner_id, count(*) AS bees FROM removed GROUP BY owner_id) AS counted WHERE publishers.id = counted.owner_id;
            END IF;
            RETURN NULL;
          END $$`.execute(db)
        await sql`CREATE FUNCTION published_bees_move_owner() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
          BEGIN
            UPDATE publishers SET bee_count = bee_count - 1 WHERE id = OLD.owner_id;
            UPDATE publishers SET bee_count = bee_count + 1 WHERE id = NEW.owner_id;
            RETURN NULL;
          END $$`.execute(db)
        await sql`CREATE TRIGGER published_bees_counted_in AFTER INSERT ON published_bees
          REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION published_bees_count_owners()`.execute(db)
        await sql`CREATE TRIGGER published_bees_counted_out AFTER DELETE ON published_bees
          REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION published_bees_count_owners()`.execute(db)
        // The WHEN is evaluated without calling the function: a PATCH (which writes owner_id unchanged) pays nothing.
        await sql`CREATE TRIGGER published_bees_owner_moved AFTER UPDATE OF owner_id ON published_bees
          FOR EACH ROW WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id) EXECUTE FUNCTION published_bees_move_owner()`.execute(db)
        return
      }
      await sql`CREATE TRIGGER published_bees_counted_in AFTER INSERT ON published_bees
        BEGIN UPDATE publishers SET bee_count = bee_count + 1 WHERE id = NEW.owner_id; END`.execute(db)
      await sql`CREATE TRIGGER published_bees_counted_out AFTER DELETE ON published_bees
        BEGIN UPDATE publishers SET bee_count = bee_count - 1 WHERE id = OLD.owner_id; END`.execute(db)
      await sql`CREATE TRIGGER published_bees_owner_moved AFTER UPDATE OF owner_id ON published_bees WHEN OLD.owner_id IS NOT NEW.owner_id
        BEGIN
          UPDATE publishers SET bee_count = bee_count - 1 WHERE id = OLD.owner_id;
          UPDATE publishers SET bee_count = bee_count + 1 WHERE id = NEW.owner_id;
        END`.execute(db)
    }
  }
}
