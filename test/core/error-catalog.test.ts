import { readFileSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { test } from 'tap'
import { errorsPage, errorsPagePath, errorTable } from '../../scripts/error-table.js'
import { catalogUses, ERROR_CATALOG, statusesOf } from '../../src/core/error-catalog.js'

test('docs/errors.md holds the table the catalog generates (npm run docs:errors)', async (t) => {
  const page = readFileSync(errorsPagePath, 'utf8')
  t.equal(page, errorsPage(page))
  t.ok(page.includes(errorTable()))
})

test('every entry is an error status with something said about it', async (t) => {
  for (const { code, status, when } of catalogUses()) {
    t.ok(status >= 400 && STATUS_CODES[status] !== undefined, `${code}: ${status} is an HTTP error status`)
    t.ok(when.trim().length > 0, `${code} under ${status} says when`)
    t.match(code, /^[A-Z][A-Z0-9_]+$/, `${code} is UPPER_SNAKE`)
  }
  t.same(statusesOf('TOKEN_INVALID'), [401, 402], 'a code sent with several statuses lists each')
  t.same(statusesOf('NO_SUCH_CODE'), [])
  t.equal(new Set(catalogUses().map(({ code }) => code)).size, Object.keys(ERROR_CATALOG).length)
})
