// Where the bench's peak RSS comes from (issue 28): starts the built service as `npm start` does, with the memory probe
// (bench/memory-probe.mjs), and after /ready and after each of the bench's loads (discovery, free execute, paid execute;
// 50 connections) reads VmRSS and VmHWM, then has the probe force a full GC and report V8's spaces. Each variant (node flags
// and env on top of `npm start`'s) runs in a service of its own, interleaved phase by phase with the others, so other
// work on the machine falls on all of them. Usage: npm run build && tsx bench/peak-rss.ts [SECONDS] [ROUNDS]
// ['NAME;--flag …;ENV=V …;SCRIPT' …] (SCRIPT: another build's server.js, for an A/B of two builds); req/s is the median over ROUNDS.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import type { Server } from './children.js'
import { fire, type Target } from './load.js'
import { median } from './stats.js'
import { BEES_PATH, paidCall, SUMMARIZE_BODY, SUMMARIZE_PATH } from './scenarios.js'
import { fundedWallet, startService } from './service.js'

interface Variant { name: string, nodeFlags: string[], env: Record<string, string>, script: string | undefined }

const seconds = Number(process.argv[2] ?? 3)
const rounds = Number(process.argv[3] ?? 1)
const variants: Variant[] = (process.argv.length > 4 ? process.argv.slice(4) : ['npm start;;']).map((spec) => {
  const [name = '', flags = '', env = '', script = ''] = spec.split(';')
  return {
    name,
    script: script === '' ? undefined : resolve(script),
    nodeFlags: flags.split(' ').filter(Boolean),
    env: Object.fromEntries(env.split(' ').filter(Boolean).map((pair) => pair.split('=') as [string, string]))
  }
})
const MCP_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'text-summarizer', arguments: JSON.parse(SUMMARIZE_BODY) as unknown } })
const PROBE = fileURLToPath(new URL('./memory-probe.mjs', import.meta.url))
const mb = (bytes: number) => (bytes / 1048576).toFixed(1)
const dir = mkdtempSync(join(tmpdir(), 'apiary-peak-rss-'))

function status (pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match?.[1] ?? NaN) * 1024
}

interface Probed { before: NodeJS.MemoryUsage, after: NodeJS.MemoryUsage, spaces: Record<string, { size: number, used: number }> }

async function probe (service: Server, probeDir: string, at: number): Promise<Probed> {
  const file = join(probeDir, `probe-${at}.json`)
  process.kill(service.pid, 'SIGWINCH')
  while (!existsSync(file)) await sleep(20)
  await sleep(100)
  return JSON.parse(readFileSync(file, 'utf8')) as Probed
}

try {
  const started = []
  for (const variant of variants) {
    const probeDir = mkdtempSync(join(dir, 'probe-'))
    const service = await startService({
      name: variant.name.replace(/\W+/g, '-'),
      databaseUrl: join(probeDir, 'ledger.db'),
      dir: probeDir,
      nodeFlags: [...variant.nodeFlags, '--expose-gc', `--import=${PROBE}`],
      script: variant.script,
      env: { MEMORY_PROBE_DIR: probeDir, ...variant.env }
    })
    while ((await fetch(`${service.url}/ready`)).status !== 200) await sleep(5)
    started.push({ variant, service, probeDir, probes: 0, wallet: await fundedWallet(service.url) })
  }
  const phases: Array<[string, (url: string, wallet: string) => Target | null]> = [
    ['ready', () => null],
    ['discovery', (url) => ({ url: url + BEES_PATH, method: 'GET' })],
    ['free execute', (url) => ({ url: url + SUMMARIZE_PATH, method: 'POST', headers: { 'content-type': 'application/json' }, body: SUMMARIZE_BODY })],
    ['paid execute', (url, wallet) => paidCall(url, [wallet])],
    ['MCP tools/call', (url) => ({ url: `${url}/mcp`, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: MCP_BODY })]
  ]
  console.log(`${rounds} interleaved round(s) of ${seconds} s a load, 50 connections; req/s the median; MB; spaces used/size after a full GC`)
  console.log('| variant | after | req/s | load avg | RSS (anon + file) | peak (VmHWM) | RSS after GC | heap used → after GC | new | old | code | large objects | external | array buffers |')
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const [phase, target] of phases) {
    const rps = new Map(started.map((one) => [one, [] as number[]]))
    for (let round = 0; round < rounds; round++) {
      for (const one of started) {
        const load = target(one.service.url, one.wallet)
        if (load !== null) rps.get(one)?.push((await fire(load, seconds, 50)).rps)
      }
    }
    for (const one of started) {
      const runs = rps.get(one) ?? []
      const [rss, peak, anon, file] = ['VmRSS', 'VmHWM', 'RssAnon', 'RssFile'].map((field) => status(one.service.pid, field)) as [number, number, number, number]
      const { before, after, spaces } = await probe(one.service, one.probeDir, one.probes++)
      const space = (name: string) => `${mb(spaces[name]?.used ?? 0)}/${mb(spaces[name]?.size ?? 0)}`
      console.log(`| ${one.variant.name} | ${phase} | ${runs.length === 0 ? '' : median(runs).toFixed(0)} | ${loadavg()[0]?.toFixed(1)} | ${mb(rss)} (${mb(anon)} + ${mb(file)}) | ${mb(peak)} | ` +
        `${mb(status(one.service.pid, 'VmRSS'))} | ${mb(before.heapUsed)} → ${mb(after.heapUsed)} | ${space('new_space')} | ${space('old_space')} | ` +
        `${space('code_space')} | ${space('large_object_space')} | ${mb(after.external)} | ${mb(after.arrayBuffers)} |`)
    }
  }
  await Promise.all(started.map(({ service }) => service.stop()))
} finally {
  rmSync(dir, { recursive: true, force: true })
}
