import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { ADMIN_TOKEN, SECRETS_KEY, UNREACHED_RATE_LIMITS } from './helper.js'
import { freePort } from './free-port.js'

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** Everything the process has written to stdout so far (its log lines). */
  output (): string
  /** Kills the process with the signal and waits until it is gone. */
  stop (signal?: NodeJS.Signals): Promise<void>
}

/**
 * Starts src/server.ts as its own process, the way `npm start` runs the built one, with this test
 * process's TypeScript loader, and resolves once /ready answers 200 (its models loaded after it listened), when a
 * load balancer would send it traffic.
 */
export async function startServer (env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, [...process.execArgv, 'src/server.ts'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ADMIN_TOKEN, SECRETS_KEY, ...UNREACHED_RATE_LIMITS, ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  let output = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const exited = once(child, 'exit')
  const url = `http://127.0.0.1:${port}`
  // Loading the app through the TypeScript loader takes seconds, and far longer on a machine busy with other suites.
  const deadline = Date.now() + 90_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready`)
    try {
      if ((await fetch(`${url}/ready`)).ok) break
    } catch {}
    if (Date.now() > deadline) throw new Error('server did not become ready in 90 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    url,
    child,
    output: () => output,
    async stop (signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    }
  }
}
