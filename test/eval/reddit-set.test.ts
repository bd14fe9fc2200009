import { test } from 'tap'
import { SAMPLE_SIZE, loadRedditSet, polarityOf, samplePolar } from '../../eval/reddit-set.js'

test('Reddit sample: a comment is positive or negative only when every emotion tag has that polarity', async t => {
  t.equal(polarityOf(['joy', 'gratitude']), 1)
  t.equal(polarityOf(['anger', 'sadness']), -1)
  t.equal(polarityOf(['joy', 'anger']), undefined, 'tags of both polarities')
  t.equal(polarityOf(['joy', 'surprise']), undefined, 'an ambiguous tag')
  t.equal(polarityOf(['neutral']), undefined)
  t.equal(polarityOf([]), undefined)
})

test('Reddit sample: drawn from the GoEmotions layout, CSV quoting undone, the same comments whatever the file order', async t => {
  const lines = [
    'Thanks, this made my day!\t15\taaa1',
    'I hate this so much\t2,3\taaa2',
    '"He said ""no"" and left"\t9\taaa3',
    'Just a fact.\t27\taaa4',
    'Wow, really?\t26\taaa5',
    'Love it but it broke\t18,9\taaa6'
  ]
  const sample = samplePolar(lines.join('\n'))
  t.same(sample.map(item => item.id).sort(), ['aaa1', 'aaa2', 'aaa3'])
  t.same(sample.find(item => item.id === 'aaa3'), { id: 'aaa3', rating: -1, text: 'He said "no" and left' })
  t.same(samplePolar([...lines].reverse().join('\n')), sample)
  t.equal(samplePolar(lines.join('\n'), 2).length, 2)
  t.throws(() => samplePolar('no tabs here'), /malformed GoEmotions line/)
})

test('Reddit sample: the committed file holds the sample, every comment labelled +1 or -1', async t => {
  const items = loadRedditSet()
  t.equal(items.length, SAMPLE_SIZE)
  t.equal(new Set(items.map(item => item.id)).size, items.length, 'one line per comment')
  t.ok(items.every(item => (item.rating === 1 || item.rating === -1) && item.text !== ''))
  const positive = items.filter(item => item.rating > 0).length
  t.ok(positive > 0.5 * items.length && positive < 0.75 * items.length, `${positive} positive: both polarities well represented`)
})
