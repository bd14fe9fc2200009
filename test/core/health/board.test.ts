import { test } from 'tap'
import { HealthBoard } from '../../../src/core/health/board.js'
import { noCounts, type BeeCounts } from '../../../src/core/health/counts.js'
import { bucketOf } from '../../../src/core/health/latency.js'

function counts (beeId: string, calls: number, failures = 0): BeeCounts {
  const bee: BeeCounts = { beeId, ...noCounts() }
  bee.calls = calls
  bee.failures = failures
  bee.latency[bucketOf(5)] = calls
  return bee
}

test('the board keeps one figures object per Bee until its counts change, and moves its version with any change', async (t) => {
  const board = new HealthBoard(60)
  t.equal(board.update([counts('alpha', 4, 1), counts('beta', 2)]), true)
  const version = board.version
  const alpha = board.of('alpha')
  t.match(alpha, { windowMinutes: 60, calls: 4, successRate: 0.75 })
  t.equal(board.of('alpha'), alpha, 'the same object, so answers rendered from it stay cached')
  t.same(board.rated().sort(), ['alpha', 'beta'])

  t.equal(board.update([counts('alpha', 4, 1), counts('beta', 2)]), false, 'the same counts read again')
  t.equal(board.version, version)
  t.equal(board.of('alpha'), alpha)

  t.equal(board.update([counts('alpha', 5, 1), counts('beta', 2)]), true)
  t.ok(board.version > version)
  t.match(board.of('alpha'), { calls: 5, successRate: 0.8 })
  t.not(board.of('alpha'), alpha)
})

test('an update of some Bees leaves the others as they were; one of them without counts leaves the board', async (t) => {
  const board = new HealthBoard(60)
  board.update([counts('alpha', 1), counts('beta', 1), counts('gamma', 1)])
  const gamma = board.of('gamma')
  t.equal(board.update([counts('beta', 3)], new Set(['alpha', 'beta'])), true)
  t.same(['alpha', 'beta', 'gamma'].map((beeId) => board.of(beeId).calls), [0, 3, 1])
  t.equal(board.of('alpha').successRate, null, 'no runs: no rate, not a perfect one')
  t.equal(board.of('gamma'), gamma)
  t.same(board.rated().sort(), ['beta', 'gamma'])
  t.equal(board.update([], new Set(['delta'])), false, 'a Bee it never had: nothing changes')

  t.equal(board.update([counts('gamma', 1)]), true, 'every Bee\'s counts: the absent ones leave')
  t.same(board.rated(), ['gamma'])
})
