import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { test } from 'tap'
import { createWallet } from '../helper.js'
import { beeBody, publish, publishingSetup } from '../publishing-helper.js'
import { within } from '../within.js'

/** A port nothing listens on now. */
async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Runs an example as a newcomer would, keeping what it prints; stopped when the test ends. */
function runExample (t: Parameters<typeof publishingSetup>[0], file: string, env: Record<string, string>): { output: () => string } {
  const child: ChildProcess = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString() })
  t.teardown(() => { child.kill() })
  return { output: () => output }
}

test('the long-running example Bee runs as an async Bee, and the webhook example verifies its run\'s callback', async (t) => {
  const { app, publisher } = await publishingSetup(t, { RUN_POLL_MS: '50', RUN_CALLBACK_RETRY_SECONDS: '1' })
  const [beePort, hookPort] = [await freePort(), await freePort()]
  const published = await publish(app, publisher.headers, beeBody('slow-shouter', `http://127.0.0.1:${beePort}/shout`, {
    pricing: { type: 'pay-per-use', costPerCall: 0.25 }, config: { executionMode: 'async', maxRunSeconds: 30 }
  }))
  const bee = runExample(t, 'examples/shout-bee.mjs', { APIARY_SIGNING_SECRET: published.signingSecret, PORT: String(beePort), WORK_SECONDS: '2' })
  t.not(await within(5000, async () => bee.output().includes('shout Bee on')), null)
  const wallet = await createWallet(app, 1)
  const started = await app.inject({
    method: 'POST',
    url: '/api/bees/slow-shouter/execute',
    payload: { text: 'hello bees' },
    headers: { 'x-registry-wallet-token': wallet.token, prefer: 'respond-async', 'callback-url': `http://127.0.0.1:${hookPort}/runs` }
  })
  t.equal(started.statusCode, 202, started.body)
  const { callbackSecret } = started.json<{ callbackSecret: string }>()
  const hook = runExample(t, 'examples/run-webhook.mjs', { CALLBACK_SECRET: callbackSecret, PORT: String(hookPort) })
  t.not(await within(15_000, async () => hook.output().includes('run.succeeded')), null, hook.output())
  t.match(hook.output(), /msg_\w+: run\.succeeded \{"shout":"HELLO BEES","length":10\}/)
  t.match(bee.output(), /: 50 %\n.*: 100 %/, 'the Bee printed its progress')
})
