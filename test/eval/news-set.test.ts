import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { buildNewsSet, newsPart, referenceInArticleOrder } from '../../eval/news-set.js'

const ARTICLE = 'Flood barrier approved\n\nThe council approved a barrier. It cost $3.5m, officials said. ' +
  '"Is it enough?" one asked.\n\nWork starts in May.'

test('a glued, shuffled reference is put back into the article\'s sentences and order', async t => {
  t.equal(referenceInArticleOrder(ARTICLE, 'Work starts in May.The council approved a barrier.'),
    'The council approved a barrier. Work starts in May.')
  t.equal(referenceInArticleOrder(ARTICLE, 'Work starts in May.It cost $3.5m, officials said.\n'),
    'It cost $3.5m, officials said. Work starts in May.', 'a decimal point does not cut a sentence')
})

test('a reference that is not made of the article\'s sentences is refused', async t => {
  t.equal(referenceInArticleOrder(ARTICLE, 'The council approved a barr'), undefined, 'a cut sentence')
  t.equal(referenceInArticleOrder(ARTICLE, 'The council rejected a barrier.'), undefined, 'a sentence of its own')
  t.equal(referenceInArticleOrder(ARTICLE, '"Is it enough?" one asked.'), undefined, 'the article\'s sentences are cut after "?"')
  t.equal(referenceInArticleOrder(ARTICLE, ''), undefined, 'nothing')
})

test('the split is a fixed function of the name: both parts used, disjoint, the same every time', async t => {
  const names = Array.from({ length: 400 }, (_, i) => `tech-${String(i + 1).padStart(3, '0')}.txt`)
  const first = names.map(newsPart)
  t.same(names.map(newsPart), first, 'deterministic')
  const tuning = names.filter((_, i) => first[i] === 'tuning')
  const heldOut = names.filter((_, i) => first[i] === 'held-out')
  t.equal(tuning.length + heldOut.length, names.length, 'every pair in exactly one part')
  t.ok(tuning.length > 150 && heldOut.length > 150, `roughly even: ${tuning.length} / ${heldOut.length}`)
  // Unlike the hash's lowest bit, which alternates with the last digit of the name.
  t.ok(names.some((name, i) => i > 0 && first[i] === first[i - 1]), 'neighbouring names can share a part')
})

test('the builder keeps usable pairs, drops unusable and repeated ones, and caps each category', async t => {
  const source = mkdtempSync(join(tmpdir(), 'news-set-'))
  t.teardown(() => rmSync(source, { recursive: true, force: true }))
  const write = (folder: string, category: string, file: string, text: string | Buffer): void => {
    mkdirSync(join(source, folder, category), { recursive: true })
    writeFileSync(join(source, folder, category, file), text)
  }
  const references: Array<[string, string]> = [['001.txt', 'Work starts in May.The council approved a barrier.'], ['002.txt', 'Not in the article.']]
  for (const [file, reference] of references) {
    write('News Articles', 'politics', file, ARTICLE)
    write('Summaries', 'politics', file, reference)
  }
  write('News Articles', 'politics', '003.txt', ARTICLE) // a repeat of 001
  write('Summaries', 'politics', '003.txt', 'Work starts in May.')
  write('News Articles', 'sport', '001.txt', Buffer.from('Win\n\nThey won \xa35m.', 'latin1'))
  write('Summaries', 'sport', '001.txt', 'They won.')
  for (let i = 2; i <= 4; i++) {
    write('News Articles', 'sport', `00${i}.txt`, `Match ${i}\n\nTeam ${i} won. Fans cheered.`)
    write('Summaries', 'sport', `00${i}.txt`, `Team ${i} won.`)
  }
  const { pairs, skipped, repeated } = buildNewsSet(source, 2)
  t.equal(skipped, 2, 'the reference not in its article and the Latin-1 article')
  t.equal(repeated, 1)
  t.same(pairs.map(p => p.name.split('-')[0]), ['politics', 'sport', 'sport'], 'at most two per category')
  t.same(pairs[0], { name: 'politics-001.txt', article: ARTICLE + '\n', reference: 'The council approved a barrier. Work starts in May.\n' })
  t.same(buildNewsSet(source, 2).pairs, pairs, 'the same pairs every time')
})
