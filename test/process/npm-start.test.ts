import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { freePort } from '../free-port.js'

const healthy = async (url: string) => await fetch(`${url}/health`).then((response) => response.ok, () => false)

test('`npm start` runs the bundle, which serves; SIGTERM to it stops the server: no orphan keeps answering', { skip: existsSync('dist/bundle/server.js') ? false : 'not built: npm run build' }, async (t) => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const npm = spawn('npm', ['start'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: ':memory:', LOG_LEVEL: 'warn' },
    stdio: 'ignore'
  })
  const exited = once(npm, 'exit')
  t.teardown(() => { if (npm.exitCode === null) npm.kill('SIGKILL') })
  const deadline = Date.now() + 60_000
  while (!await healthy(url)) {
    if (Date.now() > deadline || npm.exitCode !== null) throw new Error('npm start did not become healthy')
    await sleep(200)
  }
  // The bundle serves what the sources do: ready once its models are in, and a Bee answers.
  while ((await fetch(`${url}/ready`)).status !== 200) {
    if (Date.now() > deadline) throw new Error('npm start did not become ready')
    await sleep(200)
  }
  const call = await fetch(`${url}/api/bees/text-summarizer/execute`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'The bundle starts. It serves.' })
  })
  t.equal(call.status, 200)
  t.match(await call.json(), { beeId: 'text-summarizer', result: { summary: 'The bundle starts. It serves.' } })
  npm.kill('SIGTERM')
  await exited
  let answering = true
  for (let i = 0; i < 50 && answering; i++) {
    answering = await healthy(url)
    if (answering) await sleep(200)
  }
  t.notOk(answering, 'the server is gone once npm is')
})
