import { test } from 'tap'
import { ndcgAt } from '../../eval/search/ndcg.js'
import { loadCatalog, loadQueries } from '../../eval/search/set.js'
import { BEE_ID_SHAPE } from '../../src/core/schemas.js'

test('nDCG@10: 1 in the ideal order, less when a better Bee ranks lower, 0 with nothing relevant', (t) => {
  const relevant = { a: 3, b: 2, c: 1 }
  t.equal(ndcgAt(10, ['a', 'b', 'c'], relevant), 1)
  t.equal(ndcgAt(10, ['a', 'x', 'b', 'c'], relevant) < 1, true)
  t.ok(ndcgAt(10, ['c', 'b', 'a'], relevant) < ndcgAt(10, ['a', 'c', 'b'], relevant), 'the grade-3 Bee first counts most')
  t.equal(ndcgAt(10, ['x', 'y'], relevant), 0)
  t.equal(ndcgAt(10, [], relevant), 0)
  t.equal(ndcgAt(2, ['x', 'y', 'a'], relevant), 0, 'only the first k count')
  // One grade-3 Bee at rank 2: (2^3 - 1) / log2(3) over (2^3 - 1) / log2(2).
  t.equal(ndcgAt(10, ['x', 'a'], { a: 3 }).toFixed(4), (1 / Math.log2(3)).toFixed(4))
  t.end()
})

test('the set: 300 or more publishable Bees, 50 or more labelled queries split in fixed halves, every label a Bee of the catalog', (t) => {
  const catalog = loadCatalog()
  const queries = loadQueries()
  t.ok(catalog.length >= 300, `${catalog.length} Bees`)
  t.equal(new Set(catalog.map((bee) => bee.id)).size, catalog.length, 'ids are unique')
  t.same(catalog.filter((bee) => !BEE_ID_SHAPE.test(bee.id)).map((bee) => bee.id), [], 'every id is one publishing accepts')
  t.ok(new Set(catalog.map((bee) => bee.category)).size >= 15 && new Set(catalog.map((bee) => bee.colony)).size >= 30, 'many categories and colonies')
  t.ok(queries.length >= 50, `${queries.length} queries`)
  t.equal(new Set(queries.map((query) => query.id)).size, queries.length)
  const tune = queries.filter((query) => query.split === 'tune').length
  t.ok(Math.abs(tune - (queries.length - tune)) <= 1, `halves of ${tune} and ${queries.length - tune}`)
  t.ok(queries.every((query) => query.split === 'tune' || query.split === 'held-out'))
  const ids = new Set(catalog.map((bee) => bee.id))
  for (const query of queries) {
    const grades = Object.entries(query.relevant)
    t.ok(grades.every(([id, grade]) => ids.has(id) && [1, 2, 3].includes(grade)), `${query.id}: labels are catalog Bees graded 1 to 3`)
    t.ok(grades.some(([, grade]) => grade === 3), `${query.id}: has a Bee that should come first`)
  }
  t.end()
})
