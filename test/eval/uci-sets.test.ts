import { test } from 'tap'
import { UCI_SETS, loadUciSet, parseUciSet } from '../../eval/uci-sets.js'

test('UCI sets: class 1 is positive, 0 negative, the empty closing row is skipped, anything else refused', async t => {
  t.same(parseUciSet('[{"text":" Loved it. ","class":1},{"text":"Crust is not good.","class":0},{"text":"","class":null}]'), [
    { id: '0', rating: 1, text: 'Loved it.' },
    { id: '1', rating: -1, text: 'Crust is not good.' }
  ])
  t.throws(() => parseUciSet('[{"text":"meh","class":2}]'), /malformed labelled sentence 0/)
  for (const set of UCI_SETS) {
    const items = loadUciSet(set)
    t.equal(items.length, 1000, `${set.name}: the package ships 1,000 labelled sentences`)
    t.equal(items.filter(item => item.rating > 0).length, 500, `${set.name}: half positive`)
  }
})
