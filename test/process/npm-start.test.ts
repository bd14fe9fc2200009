import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { test, type Test } from 'tap'
import { startFakeOpenMeteo } from '../fake-open-meteo.js'
import { freePort } from '../free-port.js'

const run = promisify(execFile)
const built = existsSync('dist/bundle/server.js') ? false : 'not built: npm run build'
const healthy = async (url: string) => await fetch(`${url}/health`).then((response) => response.ok, () => false)

async function until (what: string, deadline: number, done: () => Promise<boolean>): Promise<void> {
  while (!await done()) {
    if (Date.now() > deadline) throw new Error(`npm start did not become ${what}`)
    await sleep(200)
  }
}

test('`npm start` runs the bundle, which serves; SIGTERM to it stops the server: no orphan keeps answering', { skip: built }, async (t) => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const folder = mkdtempSync(join(tmpdir(), 'apiary-npm-start-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const meteo = await startFakeOpenMeteo()
  t.teardown(meteo.close)
  const env = { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: join(folder, 'apiary.db'), LOG_LEVEL: 'warn', OPEN_METEO_URL: meteo.url }
  const npm = spawn('npm', ['start'], { env, stdio: 'ignore' })
  const exited = once(npm, 'exit')
  t.teardown(() => { if (npm.exitCode === null) npm.kill('SIGKILL') })
  const deadline = Date.now() + 60_000
  await until('healthy', deadline, async () => {
    if (npm.exitCode !== null) throw new Error(`npm start exited ${npm.exitCode}`)
    return await healthy(url)
  })
  // The bundle serves what the sources do: ready once its models are in, and a Bee answers.
  await until('ready', deadline, async () => (await fetch(`${url}/ready`)).status === 200)
  const call = await fetch(`${url}/api/bees/text-summarizer/execute`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'The bundle starts. It serves.' })
  })
  t.equal(call.status, 200)
  t.match(await call.json(), { beeId: 'text-summarizer', result: { summary: 'The bundle starts. It serves.' } })

  // undici, a chunk of the bundle read only with the first outbound request, reaches the weather provider.
  const { stdout } = await run('npm', ['run', '--silent', 'wallet', '--', 'create', '--balance', '1'], { env })
  const token = /APIARY_WALLET_TOKEN=(\S+)/.exec(stdout)?.[1] ?? ''
  const weather = await fetch(`${url}/api/bees/weather-sensor/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-registry-wallet-token': token },
    body: JSON.stringify({ latitude: 59.3293, longitude: 18.0686 })
  })
  t.equal(weather.status, 200, 'the weather Bee answers through undici')
  t.match(await weather.json(), { beeId: 'weather-sensor', result: { temperature: meteo.current.temperature_2m } })
  t.equal(meteo.requests.length, 1, 'from the fake provider')

  // Swagger UI's files are found where @fastify/swagger-ui is installed, its code being in the bundle.
  const page = await fetch(`${url}/docs/static/index.html`, { redirect: 'manual' })
  t.equal(page.status, 302, '/docs/static/index.html sends the browser to /docs')
  const script = await fetch(`${url}/docs/static/swagger-ui-bundle.js`)
  t.equal(script.status, 200)
  t.equal(Buffer.from(await script.arrayBuffer()).compare(readFileSync('node_modules/@fastify/swagger-ui/static/swagger-ui-bundle.js')), 0,
    'Swagger UI\'s own script, byte for byte')
  t.match(await (await fetch(`${url}/docs/yaml`)).text(), /^openapi: 3\.0\.3\n/, 'the document as YAML')

  npm.kill('SIGTERM')
  await exited
  let answering = true
  for (let i = 0; i < 50 && answering; i++) {
    answering = await healthy(url)
    if (answering) await sleep(200)
  }
  t.notOk(answering, 'the server is gone once npm is')
})

const script = existsSync('/usr/bin/script') ? false : 'util-linux script(1) is not installed: no terminal to run the bundle on'

/** The bundle started on a terminal of its own (script(1)), once it has said it listens: its pid, and what the terminal showed. */
async function onTerminal (t: Test, port: number) {
  // script(1) gives the server a terminal for its stdout, so the logger takes its pino-pretty transport.
  const terminal = spawn('script', ['-qfec', 'node dist/bundle/server.js', '/dev/null'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: ':memory:', LOG_LEVEL: 'info', NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'ignore']
  })
  const ended = once(terminal, 'exit')
  const shown = { text: '' }
  terminal.stdout.on('data', (chunk: Buffer) => { shown.text += chunk.toString() })
  let server = 0
  t.teardown(() => {
    if (server !== 0 && !gone(server)) process.kill(server, 'SIGKILL')
    if (terminal.exitCode === null) terminal.kill('SIGKILL')
  })
  const deadline = Date.now() + 60_000
  while (!/INFO \(\d+\): Server listening at/.test(shown.text)) {
    if (Date.now() > deadline || terminal.exitCode !== null) throw new Error(`no pretty line: ${shown.text}`)
    await sleep(100)
  }
  const line = /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \((\d+)\): Server listening at http:\/\/127\.0\.0\.1:\d+/m.exec(shown.text)
  server = Number(line?.[1])
  return { terminal, ended, shown, line, server }
}

/** Whether the process has ended: no longer there, or a zombie no parent has reaped yet. */
function gone (pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

test('on a terminal, the bundle\'s log is pretty-printed by pino\'s worker thread', { skip: built || script }, async (t) => {
  const { ended, shown, line, server } = await onTerminal(t, await freePort())
  t.ok(line, 'a line as pino-pretty writes it')
  t.notMatch(shown.text, /"level":/, 'no JSON lines')
  // Stopped by its own pid, the terminal still open (the test below hangs the terminal up instead).
  process.kill(server, 'SIGTERM')
  await ended
  t.match(shown.text, /INFO \(\d+\): shutting down: finishing in-flight requests/, 'the shutdown logged on the terminal')
})

test('a server whose terminal hangs up shuts down and ends: its port is freed and no process is left behind', { skip: built || script }, async (t) => {
  const port = await freePort()
  const { terminal, server } = await onTerminal(t, port)
  t.ok(await healthy(`http://127.0.0.1:${port}`), 'serving')
  // Killing script(1) closes the terminal: the kernel sends SIGHUP to the server, whose terminal is now gone.
  terminal.kill('SIGKILL')
  await until('free of its port', Date.now() + 10_000, async () => !await healthy(`http://127.0.0.1:${port}`))
  // At most pino's own wait for its worker (10 s) to write what it holds to the terminal that is gone.
  await until('ended after its terminal hung up', Date.now() + 20_000, async () => gone(server))
  t.ok(gone(server), 'the server process ended; on Node 20 it used to spin forever, ignoring SIGTERM')
})
