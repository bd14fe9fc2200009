import { randomBytes } from 'node:crypto'
import pg from 'pg'

export const isPostgresUrl = (url: string | undefined): url is string => url !== undefined && /^postgres(ql)?:\/\//.test(url)

export interface PrivateSchema {
  /** The server URL with search_path set to the new schema. */
  url: string
  drop (): Promise<void>
}

async function run (serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/**
 * A schema of the benchmark's own on the given server, so its wallet and its thousands of journal rows
 * never land among an operator's data and are all dropped at the end, with the one pg-boss makes beside it
 * (`<schema>_jobs`, where website preparations queue).
 */
export async function privateSchema (serverUrl: string): Promise<PrivateSchema> {
  const schema = `apiary_bench_${randomBytes(6).toString('hex')}`
  await run(serverUrl, `CREATE SCHEMA ${schema}`)
  const url = new URL(serverUrl)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return { url: url.toString(), drop: () => run(serverUrl, `DROP SCHEMA ${schema} CASCADE; DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`) }
}
