import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { catalogUses } from '../src/core/error-catalog.js'

/** The page whose table of codes is generated. */
export const errorsPagePath = fileURLToPath(new URL('../docs/errors.md', import.meta.url))

const START = '<!-- error-table: generated from src/core/error-catalog.ts by `npm run docs:errors`; do not edit by hand -->'
const END = '<!-- error-table: end -->'

/**
 * The table of every code, by status, from the catalog: codes that share a status and a meaning share a row, at the
 * first one's place.
 */
export function errorTable (): string {
  const rows = new Map<string, { status: number, codes: string[], when: string }>()
  for (const { code, status, when } of catalogUses()) {
    const key = `${status} ${when}`
    const row = rows.get(key) ?? { status, codes: [], when }
    row.codes.push(`\`${code}\``)
    rows.set(key, row)
  }
  const lines = [...rows.values()].map(({ status, codes, when }) => `| ${status} | ${codes.join(', ')} | ${when} |`)
  return ['| Status | Code | When |', '|---|---|---|', ...lines].join('\n')
}

/** docs/errors.md with the table between its markers made anew. */
export function errorsPage (page: string): string {
  const start = page.indexOf(START)
  const end = page.indexOf(END)
  if (start === -1 || end < start) throw new Error(`docs/errors.md has no "${START}" … "${END}" markers`)
  return `${page.slice(0, start + START.length)}\n\n${errorTable()}\n\n${page.slice(end)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(errorsPagePath, errorsPage(readFileSync(errorsPagePath, 'utf8')))
  console.log(`wrote ${errorsPagePath}`)
}
