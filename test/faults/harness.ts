import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { Agent, request } from 'undici'
import { freePort } from '../free-port.js'
import { ADMIN_TOKEN, SECRETS_KEY, UNREACHED_RATE_LIMITS } from '../helper.js'
import { BUNDLE, newerSource } from '../server-process.js'

const run = promisify(execFile)

/**
 * Why the fault suite cannot run here, or false: it restarts PostgreSQL and Redis and mounts a tmpfs (root, as CI
 * runs), and runs the built bundle, which must be newer than the sources it is built from.
 */
export function faultSkip (): string | false {
  if (process.getuid?.() !== 0) return 'the fault suite restarts PostgreSQL and Redis and mounts a tmpfs: run it as root (CI does)'
  const newer = newerSource()
  if (newer === 'no bundle') return `${BUNDLE} is missing: npm run build`
  if (newer !== null) throw new Error(`${BUNDLE} is older than ${newer}: npm run build, then run the fault suite again`)
  return false
}

/** The settings every case shares: holds and claims that expire within seconds, so the money settles while the test watches. */
export const FAULT_ENV = {
  ...UNREACHED_RATE_LIMITS,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  ADMIN_TOKEN,
  SECRETS_KEY,
  WEATHER_TIMEOUT_MS: '1000',
  REMOTE_BEE_TIMEOUT_MS: '1000',
  IDEMPOTENCY_LEASE_SECONDS: '2',
  HOLD_TIMEOUT_SECONDS: '4',
  HOLD_SWEEP_INTERVAL_MS: '250',
  OPEN_METEO_URL: 'http://127.0.0.1:9'
}

export interface LogLine { level: number, msg: string, err?: { message?: string, stack?: string }, [field: string]: unknown }

export interface Service {
  url: string
  child: ChildProcess
  lines (): LogLine[]
  /** Sends the signal and waits for the exit: its code, or the signal that ended it. */
  stop (signal?: NodeJS.Signals): Promise<{ code: number | null, signal: string | null }>
}

/** Starts the built bundle, as `npm start` does, and resolves once /ready answers 200. */
export async function startService (t: Test, env: Record<string, string>): Promise<Service> {
  const port = await freePort()
  const child = spawn(process.execPath, [BUNDLE], { env: { ...process.env, ...FAULT_ENV, PORT: String(port), ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT')
      child.kill('SIGKILL')
      await exited
    }
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (!await fetch(`${url}/ready`).then((response) => response.ok, () => false)) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before it was ready`)
    if (Date.now() > deadline) throw new Error('the service was not ready within 60 s')
    await sleep(100)
  }
  return {
    url,
    child,
    lines: () => output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine),
    async stop (signal = 'SIGTERM') {
      child.kill(signal)
      const [code, ended] = await exited
      return { code, signal: ended }
    }
  }
}

/** A wallet made through the admin API, funded to pay every call a case makes. */
export async function createWallet (url: string, balance: number): Promise<{ id: string, token: string }> {
  const response = await fetch(`${url}/api/wallets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ balance })
  })
  if (response.status !== 201) throw new Error(`wallet creation failed: ${response.status} ${await response.text()}`)
  return await response.json() as { id: string, token: string }
}

/** What the callers saw: every status (or network failure) with how often, and the code of each 5xx body. */
export interface Seen {
  statuses: Map<string, number>
  codes: Map<string, number>
  /** Idempotency-Keys answered 200, first or replayed. */
  answered: Set<string>
  /** When each call was answered 200, with when it was sent: for the recovery times. */
  successes: Array<{ sentAt: number, at: number }>
}

/**
 * Paid sentiment calls from `callers` concurrent callers, each with an Idempotency-Key of its own, as a careful agent
 * calls: a 503, a 409 (the same key still running elsewhere) or no answer at all is retried with the same key until it
 * is answered, so every call that was charged ends with its answer in the caller's hands, first or replayed.
 */
export function startLoad (t: Test, url: string, token: string, callers = 10) {
  const agent = new Agent({ connections: callers, keepAliveTimeout: 10_000, headersTimeout: 2000, bodyTimeout: 2000 })
  const seen: Seen = { statuses: new Map(), codes: new Map(), answered: new Set(), successes: [] }
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)
  const state = { stopping: false, aborted: false, closed: false }
  let made = 0
  const one = async (key: string, deadline: number) => {
    while (Date.now() < deadline && !state.aborted) {
      const sentAt = Date.now()
      try {
        const response = await request(`${url}/api/bees/sentiment-analyzer/execute`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'x-registry-wallet-token': token, 'idempotency-key': key },
          body: JSON.stringify({ text: `A lovely day, call ${key}.` })
        })
        const body = await response.body.json() as { code?: string }
        count(seen.statuses, String(response.statusCode))
        if (response.statusCode >= 500) count(seen.codes, `${response.statusCode} ${body.code ?? '?'}${response.headers['retry-after'] === undefined ? ' without Retry-After' : ''}`)
        if (response.statusCode === 200) {
          seen.answered.add(key)
          seen.successes.push({ sentAt, at: Date.now() })
          return
        }
        // Anything but a refusal to retry later is the caller's to read, not to retry.
        if (![409, 503].includes(response.statusCode)) return
      } catch (error) {
        count(seen.statuses, `no answer (${(error as { code?: string }).code ?? (error as Error).message})`)
      }
      await sleep(100)
    }
  }
  const callersDone = Array.from({ length: callers }, async (_, caller) => {
    while (!state.stopping) await one(`c${caller}-${made++}`, Date.now() + 60_000)
  })
  const abort = async () => {
    if (state.aborted || state.closed) return
    state.stopping = true
    state.aborted = true
    await agent.destroy()
    await Promise.all(callersDone)
  }
  // A case that fails half-way must not leave its callers calling.
  t.teardown(abort)
  return {
    seen,
    /** Stops sending new calls; resolves once every call sent has been answered 200 or given up after 60 s. */
    async stop (): Promise<Seen> {
      state.stopping = true
      await Promise.all(callersDone)
      await agent.close()
      state.closed = true
      return seen
    },
    /** Stops at once, the calls under way given up: for a service that is gone. */
    abort
  }
}

/** Waits until `check` holds, polling every 25 ms, up to `ms`; resolves with when it first held, or null. */
export async function until (ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return Date.now()
    await sleep(25)
  }
  return null
}

export const isReady = async (url: string) => await fetch(`${url}/ready`).then((response) => response.status === 200, () => false)

/** Resolves once the service has answered `n` more calls. */
export async function moreAnswers (seen: Seen, n: number, ms = 30_000): Promise<void> {
  const target = seen.successes.length + n
  if (await until(ms, async () => seen.successes.length >= target) === null) {
    throw new Error(`fewer than ${n} calls answered in ${ms} ms (seen: ${JSON.stringify(Object.fromEntries(seen.statuses))})`)
  }
}

/** The ledger's own account of the wallet, read from its database once every hold has settled. */
export interface Books {
  /** What the wallet lost: its opening balance less its balance now, in micro-units. */
  spentMicros: number
  /** Every capture's Idempotency-Key and amount. */
  captures: Array<{ key: string, amount: number }>
  pendingHolds: number
}

/**
 * Asserts what the fault suite asks of every case: the process alive, no 5xx but 503 (each with Retry-After), and money
 * exact: what the wallet lost is what was captured, each capture is of a call answered 200 (first or replayed),
 * captured once, and every call answered 200 was captured.
 */
export function checkCase (t: Test, service: Service, seen: Seen, books: Books, priceMicros: number): void {
  t.equal(service.child.exitCode, null, 'the process stayed alive')
  const statuses = Object.fromEntries(seen.statuses)
  t.comment(`statuses seen: ${JSON.stringify(statuses)}; 5xx codes: ${JSON.stringify(Object.fromEntries(seen.codes))}`)
  t.same([...seen.statuses.keys()].filter((status) => /^5/.test(status) && status !== '503'), [], 'no 5xx but 503')
  t.same([...seen.codes.keys()].filter((code) => code.includes('without Retry-After')), [], 'every 503 says when to retry')
  t.equal(books.pendingHolds, 0, 'every hold settled')
  const captured = books.captures.map((capture) => capture.key)
  t.equal(books.spentMicros, books.captures.reduce((sum, capture) => sum + capture.amount, 0), `the wallet lost what was captured (${books.captures.length} captures)`)
  t.ok(books.captures.every((capture) => capture.amount === priceMicros), 'each at the price')
  t.equal(new Set(captured).size, captured.length, 'no call captured twice')
  t.same(captured.filter((key) => !seen.answered.has(key)), [], 'every capture has its answer in its caller\'s hands')
  t.same([...seen.answered].filter((key) => !captured.includes(key)), [], 'every answer was paid for')
}

/** The log lines of an outage of `dependency`, and every line that carries a stack. */
export function outageLines (lines: LogLine[], dependency: string) {
  return {
    started: lines.filter((line) => line.msg.startsWith(`${dependency} unavailable`)),
    ended: lines.filter((line) => line.msg === `${dependency} back`),
    stacks: lines.filter((line) => line.err?.stack !== undefined)
  }
}

/** Recovery after `backAt`: when /ready first answered 200, and when a call sent after it was first answered. */
export async function recovery (url: string, seen: Seen, backAt: number): Promise<{ readyMs: number | null, servedMs: number | null }> {
  const ready = await until(10_000, async () => await isReady(url))
  const served = await until(10_000, async () => seen.successes.some((success) => success.sentAt >= backAt))
  const first = seen.successes.filter((success) => success.sentAt >= backAt).map((success) => success.at).sort((a, b) => a - b)[0]
  return { readyMs: ready === null ? null : ready - backAt, servedMs: served === null || first === undefined ? null : first - backAt }
}

export { run, sleep }
