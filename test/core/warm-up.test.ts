import { test } from 'tap'
import { WarmUp } from '../../src/core/warm-up.js'

test('a load runs once, whoever asks first, and is pending until it is in', async (t) => {
  const warmUp = new WarmUp()
  let runs = 0
  let finish = () => {}
  const loaded = warmUp.add('model', () => { runs++; return new Promise<void>((resolve) => { finish = resolve }) })
  t.same(warmUp.pending(), ['model'])
  const waiting = Promise.all([loaded(), warmUp.start(), loaded()])
  t.same(warmUp.pending(), ['model'], 'started is not loaded')
  finish()
  await waiting
  t.equal(runs, 1)
  t.same(warmUp.pending(), [])
  await loaded()
  t.equal(runs, 1, 'a load in is not run again')
})

test('a failed load stays pending and is tried again by the next caller', async (t) => {
  const warmUp = new WarmUp()
  let runs = 0
  const loaded = warmUp.add('model', async () => { if (++runs === 1) throw new Error('disk hiccup') })
  await t.rejects(warmUp.start(), /disk hiccup/)
  t.same(warmUp.pending(), ['model'])
  await loaded()
  t.equal(runs, 2)
  t.same(warmUp.pending(), [])
})

test('a name is registered once', async (t) => {
  const warmUp = new WarmUp()
  warmUp.add('model', async () => {})
  t.throws(() => warmUp.add('model', async () => {}), /registered twice/)
})
