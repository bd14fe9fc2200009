import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ADMIN_TOKEN, SECRETS_KEY, UNREACHED_RATE_LIMITS } from './helper.js'
import { freePort } from './free-port.js'

/**
 * What a spawned server runs:
 * - 'bundle': dist/bundle/server.js, what `npm start` and the image run (the process and adversarial suites). A start
 *   takes about 1 CPU second, against 4 for the sources through the TypeScript loader.
 * - 'sources': src/server.ts through this test process's loader, for a test of the fast suite (`npm test`), which
 *   must not need a build.
 */
export type ServerEntry = 'bundle' | 'sources'

export const BUNDLE = resolve('dist/bundle/server.js')
const BUILT_FROM = ['src', 'plugins', 'bees']

/** A file the bundle is built from that is newer than the bundle (or 'no bundle'); null when the bundle is current. */
export function newerSource (): string | null {
  if (!existsSync(BUNDLE)) return 'no bundle'
  const built = statSync(BUNDLE).mtimeMs
  for (const folder of BUILT_FROM) {
    for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
      const file = join(entry.parentPath, entry.name)
      if (entry.isFile() && statSync(file).mtimeMs > built) return file
    }
  }
  return null
}

let bundleChecked = false

// A path (.taprc's `./test/tsx.mjs`) is relative to the folder tap runs in; a package name resolves from here.
const absoluteImport = (specifier: string): string => specifier.startsWith('.') ? pathToFileURL(resolve(specifier)).href : import.meta.resolve(specifier)

/**
 * The node arguments that start a server from `entry`. The loader's `--import` is made absolute, so that a child
 * started in another folder finds it too. A bundle older than its sources would test old code: refused, with the fix.
 */
export function serverArgs (entry: ServerEntry): string[] {
  if (entry === 'sources') {
    const loaderArgs = process.execArgv.map((arg) => arg.startsWith('--import=') && !arg.includes(':') ? `--import=${absoluteImport(arg.slice('--import='.length))}` : arg)
    return [...loaderArgs, resolve('src/server.ts')]
  }
  if (!bundleChecked) {
    const newer = newerSource()
    if (newer !== null) throw new Error(`dist/bundle/server.js is older than its sources (${newer}): run \`npm run build\` first; the process and adversarial suites run the bundle, as \`npm start\` does`)
    bundleChecked = true
  }
  return ['--enable-source-maps', BUNDLE]
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** Everything the process has written to stdout so far (its log lines). */
  output (): string
  /** Kills the process with the signal and waits until it is gone. */
  stop (signal?: NodeJS.Signals): Promise<void>
}

/**
 * Starts the server as its own process (the bundle, as `npm start` runs it, unless told otherwise: see ServerEntry),
 * and resolves once /ready answers 200 (its models loaded after it listened), when a load balancer would send it
 * traffic.
 */
export async function startServer (env: Record<string, string>, entry: ServerEntry = 'bundle'): Promise<ServerProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, serverArgs(entry), {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ADMIN_TOKEN, SECRETS_KEY, ...UNREACHED_RATE_LIMITS, ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  let output = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const exited = once(child, 'exit')
  const url = `http://127.0.0.1:${port}`
  // Loading the sources through the TypeScript loader takes seconds, and far longer on a machine busy with other suites.
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
