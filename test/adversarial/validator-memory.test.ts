import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { test } from 'tap'

const run = promisify(execFile)

// In the adversarial suite, which runs without coverage: V8 keeps coverage data for every function it compiles,
// and every validator is one, so under coverage the heap grows whatever the service frees.
test('hundreds of schema changes to one Bee leave the heap where it was', async (t) => {
  const { stdout } = await run(process.execPath, [...process.execArgv, '--expose-gc', '--no-compilation-cache', 'test/fixtures/patch-heap.ts'], {
    env: { ...process.env, PATCHES: '400' }, maxBuffer: 1024 * 1024
  })
  const { warm, end } = JSON.parse(stdout.trim().split('\n').pop() as string) as { warm: number, end: number }
  const grownMb = (end - warm) / 1024 / 1024
  t.ok(grownMb < 5, `the heap grew ${grownMb.toFixed(1)} MB over 300 PATCHes (${(warm / 1048576).toFixed(0)} → ${(end / 1048576).toFixed(0)} MB)`)
})
