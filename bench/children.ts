import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../test/free-port.js'

export interface ServerSpec {
  name: string
  /** Arguments to `node`: flags, then the script. */
  args: string[]
  env: Record<string, string>
  /** stdout and stderr go here, not through a pipe the runner would have to drain while it loads. */
  logFile: string
  /** How long /health may take to answer 200 (a catalog of 100,000 Bees loaded up front takes longer than 30 s). */
  startupLimitMs?: number
}

export interface Server {
  name: string
  url: string
  pid: number
  /** From spawn to the first 200 on /health. */
  startupMs: number
  stop (): Promise<void>
}

const HEALTH_POLL_MS = 5
const STARTUP_LIMIT_MS = 30_000
// Long enough for a graceful close and for --cpu-prof to write its profile. The timer is unref'd: a running child
// keeps the runner alive by itself, and a timer that did too would hold the runner open 15 s after every stop.
const STOP_GRACE_MS = 15_000

const running = new Map<ChildProcess, () => Promise<void>>()

// Last resort if the runner dies without reaching its finally: no orphan keeps a port or a CPU.
process.on('exit', () => {
  for (const child of running.keys()) child.kill('SIGKILL')
})

function healthStatus (url: string): Promise<number | null> {
  return new Promise((resolve) => {
    const probe = request(`${url}/health`, { agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode ?? null)
    })
    probe.on('error', () => resolve(null))
    probe.end()
  })
}

function logTail (logFile: string): string {
  try {
    return readFileSync(logFile).subarray(-2000).toString()
  } catch {
    return '(no log)'
  }
}

function isAlive (child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null
}

/** Starts a server on a free port of 127.0.0.1 (passed as PORT and HOST) and resolves once /health answers 200. */
export async function startServer (spec: ServerSpec): Promise<Server> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const log = openSync(spec.logFile, 'a')
  const started = performance.now()
  const limitMs = spec.startupLimitMs ?? STARTUP_LIMIT_MS
  const child = spawn(process.execPath, spec.args, {
    env: { ...process.env, ...spec.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log]
  })
  closeSync(log)
  const exited = once(child, 'exit')

  const stop = async () => {
    if (isAlive(child)) {
      child.kill('SIGTERM')
      const gone = await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS, false, { ref: false })])
      if (!gone) {
        child.kill('SIGKILL')
        await exited
      }
    }
    running.delete(child)
  }
  running.set(child, stop)

  for (;;) {
    if (!isAlive(child)) {
      running.delete(child)
      throw new Error(`${spec.name} exited (${child.exitCode ?? child.signalCode}) before /health answered. Log:\n${logTail(spec.logFile)}`)
    }
    if (await healthStatus(url) === 200) break
    if (performance.now() - started > limitMs) {
      await stop()
      throw new Error(`${spec.name} did not answer 200 on /health within ${limitMs} ms. Log:\n${logTail(spec.logFile)}`)
    }
    await sleep(HEALTH_POLL_MS)
  }
  return { name: spec.name, url, pid: child.pid as number, startupMs: performance.now() - started, stop }
}

/** Stops every server still running; safe to call more than once. */
export async function stopAll (): Promise<void> {
  await Promise.all([...running.values()].map((stop) => stop()))
}

/** One of the process's memory figures in /proc/PID/status (VmRSS, VmHWM, …), in bytes; null where /proc is not available. */
export function statusBytes (pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match?.[1] === undefined ? null : Number(match[1]) * 1024
  } catch {
    return null
  }
}

/** The process's peak resident set size (VmHWM), or null where /proc is not available. */
export const peakRssBytes = (pid: number): number | null => statusBytes(pid, 'VmHWM')
