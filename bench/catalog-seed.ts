import Database from 'better-sqlite3'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import { SecretBox, parseSecretsKey } from '../src/core/ledger/secrets.js'

const WORDS = ['glacier', 'pollen', 'counter', 'river', 'tide', 'solar', 'wind', 'traffic', 'invoice', 'currency', 'recipe', 'poem',
  'sentiment', 'translate', 'summary', 'weather', 'noise', 'air', 'quality', 'stock', 'flight', 'parcel', 'calendar', 'holiday',
  'earthquake', 'ocean', 'forest', 'crop', 'soil', 'bird', 'song', 'chess', 'route', 'parking', 'energy', 'price', 'ticket', 'email']
const CATEGORIES = ['data', 'language', 'utility', 'reasoning', 'finance', 'geo', 'media', 'science']
const COLONIES = ['community', 'earth', 'city', 'markets', 'studio']
export const INPUT_SCHEMA = { type: 'object', properties: { text: { type: 'string', maxLength: 1000 } }, required: ['text'], additionalProperties: false }
/** What test/fake-bee.ts answers, so that every seeded Bee can be executed against one fake remote Bee. */
export const OUTPUT_SCHEMA = { type: 'object', properties: { shout: { type: 'string' }, length: { type: 'integer' } }, required: ['shout', 'length'] }

const word = (i: number, salt: number) => WORDS[(i * 7 + salt * 13) % WORDS.length] as string

/** A Bee that reads like one of a real catalog: a few words of a vocabulary, a category, a colony. */
export function seedText (i: number) {
  const [a, b, c] = [word(i, 1), word(i, 2), word(i, 3)]
  return {
    id: `seed-${a}-${b}-${i}`,
    name: `${a[0]?.toUpperCase()}${a.slice(1)} ${b} ${c}`,
    description: `Reports ${b} and ${c} figures for a ${a} near you; confidence is the share of sources that agree.`,
    category: CATEGORIES[i % CATEGORIES.length] as string,
    colony: COLONIES[i % COLONIES.length] as string
  }
}

const columns = ['id', 'owner_id', 'owner_email', 'name', 'description', 'category', 'colony', 'endpoint', 'input_schema', 'output_schema',
  'primary_services', 'pricing_type', 'cost_micros', 'currency', 'status', 'signing_secret', 'version', 'created_at', 'updated_at', 'change_seq'] as const

function rowOf (i: number, seed: Seed, box: SecretBox, seq: number, now: string): unknown[] {
  const text = seedText(i)
  return [text.id, seed.ownerId, 'seed@example.com', text.name, text.description, text.category, text.colony, seed.endpoint,
    JSON.stringify(INPUT_SCHEMA), JSON.stringify(OUTPUT_SCHEMA), '["seed"]', 'free', 0, 'USD', 'active', box.seal(`bsk_seed_${i}`, text.id), 1, now, now, seq]
}

const boxOf = (secretsKey: string) => {
  const key = parseSecretsKey(secretsKey)
  if (key === null) throw new Error('bad SECRETS_KEY')
  return new SecretBox(() => ({ current: key, previous: [] }))
}

/** Whose the seeded Bees are, and where they run (one remote Bee answers for all of them). */
export interface Seed { ownerId: string, endpoint: string, count: number }

/** Seeds `count` Bees straight into the catalog's tables (and its search index), as one change of the catalog version. */
export async function seedCatalog (databaseUrl: string, secretsKey: string, seed: Seed): Promise<void> {
  const box = boxOf(secretsKey)
  const now = new Date().toISOString()
  const { count } = seed
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return await seedPostgres(databaseUrl, box, seed, now)
  const database = new Database(databaseUrl)
  try {
    database.transaction(() => {
      const seq = Number((database.prepare('UPDATE catalog_version SET version = version + 1 WHERE id = 1 RETURNING version').get() as { version: number }).version)
      const insert = database.prepare(`INSERT INTO published_bees (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
      const index = database.prepare('INSERT INTO catalog_search (id, name, category, colony, description) VALUES (?, ?, ?, ?, ?)')
      for (let i = 0; i < count; i++) {
        insert.run(...rowOf(i, seed, box, seq, now))
        const text = seedText(i)
        index.run(text.id, text.name, text.category, text.colony, text.description)
      }
    })()
  } finally {
    database.close()
  }
}

/** COPY, the bulk path: text format, so tabs, newlines and backslashes in a value are escaped. */
const copyLine = (values: unknown[]) => values.map((value) => String(value).replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] as string)).join('\t') + '\n'

async function seedPostgres (databaseUrl: string, box: SecretBox, seed: Seed, now: string): Promise<void> {
  const { count } = seed
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query('BEGIN')
    const { rows } = await client.query<{ version: string }>('UPDATE catalog_version SET version = version + 1 WHERE id = 1 RETURNING version')
    const seq = Number(rows[0]?.version)
    const lines = function * (make: (i: number) => unknown[]) { for (let i = 0; i < count; i++) yield copyLine(make(i)) }
    await pipeline(Readable.from(lines((i) => rowOf(i, seed, box, seq, now))), client.query(copyFrom(`COPY published_bees (${columns.join(', ')}) FROM STDIN`)))
    await pipeline(Readable.from(lines((i) => {
      const text = seedText(i)
      return [text.id, text.name, text.category, text.colony, text.description]
    })), client.query(copyFrom('COPY catalog_search (id, name, category, colony, description) FROM STDIN')))
    await client.query('COMMIT')
    await client.query('ANALYZE published_bees')
    await client.query('ANALYZE catalog_search')
  } finally {
    await client.end()
  }
}
