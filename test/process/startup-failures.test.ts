import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { test, type Test } from 'tap'
import { SECRETS_KEY } from '../helper.js'
import { serverArgs } from '../server-process.js'

interface Failed { code: number | null, stdout: string, stderr: string, ms: number }

/** Starts the bundle as `npm start` would and waits for it to exit (killed after 60 s: a hang is a failure too). */
async function start (env: Record<string, string>): Promise<Failed> {
  const started = Date.now()
  const child = spawn(process.execPath, serverArgs('bundle'), {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', SECRETS_KEY, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const [code] = await once(child, 'exit') as [number | null]
  clearTimeout(timer)
  return { code, stdout, stderr, ms: Date.now() - started }
}

const postgres = process.env.TEST_DATABASE_URL
const postgresSkip = postgres === undefined || postgres === '' ? 'TEST_DATABASE_URL is not set' : false
/** TEST_DATABASE_URL with another database name or port. */
const postgresWith = (change: (url: URL) => void) => {
  const url = new URL(postgres ?? 'postgres://localhost/x')
  change(url)
  return url.toString()
}

const failures: Array<{ what: string, skip?: string | false, env: (t: Test) => Promise<Record<string, string>> | Record<string, string>, line: RegExp }> = [
  {
    what: 'the port is in use',
    env: async (t) => {
      const taken = createServer().listen(0, '127.0.0.1')
      await once(taken, 'listening')
      const { port } = taken.address() as { port: number }
      t.teardown(() => taken.close())
      return { DATABASE_URL: ':memory:', PORT: String(port) }
    },
    line: /^Could not start: PORT: 127\.0\.0\.1:\d+ is already in use by another process/
  },
  {
    what: 'PostgreSQL refuses the connection',
    skip: postgresSkip,
    env: () => ({ DATABASE_URL: postgresWith((url) => { url.port = '9' }) }),
    line: /^Could not start: DATABASE_URL: PostgreSQL at [^ ]+:9 refused the connection/
  },
  {
    what: 'the database does not exist',
    skip: postgresSkip,
    env: () => ({ DATABASE_URL: postgresWith((url) => { url.pathname = '/no_such_apiary_database' }) }),
    line: /^Could not start: DATABASE_URL: the database "no_such_apiary_database" does not exist on /
  },
  {
    what: 'the database host does not resolve',
    env: () => ({ DATABASE_URL: 'postgres://apiary@db.invalid:5432/apiary' }),
    line: /^Could not start: DATABASE_URL: the database host "db\.invalid" does not resolve/
  },
  {
    what: 'Redis is down',
    env: () => ({ DATABASE_URL: ':memory:', REDIS_URL: 'redis://127.0.0.1:9' }),
    line: /^Could not start: REDIS_URL: cannot connect to Redis at 127\.0\.0\.1:9/
  },
  {
    what: 'the SQLite file\'s folder cannot be made (under /proc, recursive mkdir spun forever)',
    skip: process.platform === 'linux' ? false : '/proc is Linux\'s',
    env: () => ({ DATABASE_URL: '/proc/nope/apiary.db' }),
    line: /^Could not start: DATABASE_URL: cannot create the folder \/proc\/nope for the SQLite file \(ENOENT\)/
  }
]

for (const failure of failures) {
  test(`start-up fails with one line naming the variable when ${failure.what}`, { skip: failure.skip }, async (t) => {
    const { code, stdout, stderr, ms } = await start(await failure.env(t))
    t.equal(code, 1, 'exit 1')
    t.match(stderr, failure.line)
    t.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr}`)
    t.notMatch(stdout, /"stack"|"level":60/, 'no stack, no fatal log at the default level')
    t.comment(`failed after ${ms} ms, loading the app included`)
  })
}

test('at LOG_LEVEL=debug the stack is logged too', async (t) => {
  const { code, stdout, stderr } = await start({ DATABASE_URL: ':memory:', REDIS_URL: 'redis://127.0.0.1:9', LOG_LEVEL: 'debug' })
  t.equal(code, 1)
  t.match(stderr, /REDIS_URL/)
  t.match(stdout, /"level":20.*"stack":.*"msg":"could not start"/)
})
