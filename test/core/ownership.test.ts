import { test } from 'tap'
import { owned, ownerScope } from '../../src/core/ownership.js'
import type { Principal } from '../../src/core/principal.js'

const operator: Principal = { kind: 'admin' }
const publisher: Principal = { kind: 'publisher', publisher: { id: 'pub_a', email: 'a@example.com', name: 'A', createdAt: '2026-01-01T00:00:00Z' } }
const missing = () => new Error('not found')

test('the operator manages every record, a publisher only its own; anything else is not found', async (t) => {
  const mine = { id: 'x', ownerId: 'pub_a' }
  const theirs = { id: 'y', ownerId: 'pub_b' }
  t.equal(owned(publisher, mine, missing), mine)
  t.throws(() => owned(publisher, theirs, missing), { message: 'not found' }, 'someone else\'s record is missing, not forbidden')
  t.throws(() => owned(publisher, null, missing), { message: 'not found' })
  t.equal(owned(operator, theirs, missing), theirs)
  t.throws(() => owned(operator, null, missing), { message: 'not found' })
})

test('a listing is scoped to the publisher; the operator\'s to no one', async (t) => {
  t.equal(ownerScope(publisher), 'pub_a')
  t.equal(ownerScope(operator), undefined)
})
