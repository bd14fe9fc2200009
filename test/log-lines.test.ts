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

test('a pino logger writes through it; flushSync writes every line queued behind the write in flight before it returns (what exit relies on)', async (t) => {
  const { encoder, file } = await encoderToFile(t)
  const logger = pino({ base: null, timestamp: false }, encoder)
  for (let i = 0; i < 500; i++) logger.info({ i, word: 'Zürich' }, 'a line')
  encoder.flushSync()
  // The first line went to the libuv thread pool as an asynchronous write at once; sonic-boom's flushSync writes what
  // is queued behind it and does not wait for it, so it lands in its own time, before or after the rest (a busy CI
  // machine saw it land after). Every other line is in the file when flushSync returns, in order.
  const entries = () => readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number })
  const queued = entries().filter(({ i }) => i !== 0)
  t.same(queued.map(({ i }) => i), Array.from({ length: 499 }, (_, i) => i + 1), 'the queued lines, in order')
  t.same(queued.at(-1), { level: 30, i: 499, word: 'Zürich', msg: 'a line' }, 'non-ASCII text byte for byte')
  for (let wait = 0; wait < 200 && entries().length < 500; wait++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(entries().map(({ i }) => i).sort((a, b) => a - b), Array.from({ length: 500 }, (_, i) => i), 'the line in flight lands too')
})
