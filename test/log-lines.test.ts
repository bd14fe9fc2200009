import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { test, type Test } from 'tap'
import { LineEncoder } from '../src/log-lines.js'

/** The encoder over pino's asynchronous destination, as createLogger builds it, writing to a file of the test's own. */
async function encoderToFile (t: Test) {
  const folder = mkdtempSync(join(tmpdir(), 'apiary-log-lines-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const file = join(folder, 'out.log')
  const destination = pino.destination({ dest: file, sync: false, contentMode: 'buffer' })
  await once(destination, 'ready')
  t.teardown(() => { destination.end() })
  return { encoder: new LineEncoder(destination), destination, file }
}

test('lines reach the destination byte for byte and in order, non-ASCII text included, queued behind writes in flight', async (t) => {
  const { encoder, destination, file } = await encoderToFile(t)
  const lines = Array.from({ length: 3000 }, (_, i) => `{"i":${i},"text":"café 🐝 naïve ${'x'.repeat(i % 70)}"}\n`)
  const drained = once(destination, 'drain')
  for (const line of lines) encoder.write(line)
  // Drained: the queue is empty and the last write has completed.
  await drained
  t.equal(readFileSync(file, 'utf8'), lines.join(''))
})

test('a pino logger writes through it, and flushSync writes what is queued before it returns (what exit relies on)', async (t) => {
  const { encoder, file } = await encoderToFile(t)
  const logger = pino({ base: null, timestamp: false }, encoder)
  for (let i = 0; i < 500; i++) logger.info({ i, word: 'Zürich' }, 'a line')
  encoder.flushSync()
  const entries = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number, word: string, msg: string })
  t.equal(entries.length, 500)
  t.same(entries.map(({ i }) => i), Array.from({ length: 500 }, (_, i) => i), 'in order')
  t.same(entries[499], { level: 30, i: 499, word: 'Zürich', msg: 'a line' })
})
