import { fileURLToPath } from 'node:url'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RESET_HEADER, WRITE_INSIDE_STEP, WRITE_STEP } from '../plugins/spans.js'
import type { SpanReport } from '../src/core/spans.js'
import { fire, type Target } from './load.js'
import { BEES_PATH, DETAIL_PATH, paidCall, SUMMARIZE_BODY, SUMMARIZE_PATH } from './scenarios.js'
import { fundedWallet, startService } from './service.js'

/** One scenario's per-request cost of each step, in µs. */
export interface BreakdownColumn {
  title: string
  requests: number
  /** Fastify's own time per request (reply.elapsedTime at the first onResponse hook). */
  requestUs: number
  stepsUs: Record<string, number>
}

const json = { 'content-type': 'application/json' }

const SCENARIOS: Array<{ title: string, target: (url: string, walletToken: string) => Target }> = [
  { title: 'discovery', target: (url) => ({ url: url + BEES_PATH, method: 'GET' }) },
  { title: 'detail', target: (url) => ({ url: url + DETAIL_PATH, method: 'GET' }) },
  { title: 'free execute', target: (url) => ({ url: url + SUMMARIZE_PATH, method: 'POST', headers: json, body: SUMMARIZE_BODY }) },
  { title: 'paid execute (SQLite)', target: (url, walletToken) => paidCall(url, [walletToken]) }
]

/**
 * Where a request's time goes, step by step: each scenario against a fresh service in its bench build
 * (BENCH_SPANS_FILE, see plugins/spans.ts), warmed up, its counts reset (X-Bench-Spans-Reset), then loaded by one connection,
 * so that a step's wall time is its CPU time and no other request's. The totals are written when it stops.
 */
/**
 * tsc's output, not the bundle: a hook is named by the file that added it, and in the bundle every plugin's file is
 * the one bundle (or the spans chunk that patched addHook), so every hook was named the same.
 */
const UNBUNDLED = fileURLToPath(new URL('../dist/src/server.js', import.meta.url))

export async function breakdown (dir: string, seconds: number, warmupSeconds: number): Promise<BreakdownColumn[]> {
  const columns: BreakdownColumn[] = []
  for (const [i, { title, target }] of SCENARIOS.entries()) {
    const file = join(dir, `spans-${i}.json`)
    const service = await startService({ name: `apiary-spans-${i}`, databaseUrl: join(dir, `spans-${i}.db`), dir, script: UNBUNDLED, env: { BENCH_SPANS_FILE: file } })
    const load = target(service.url, await fundedWallet(service.url))
    await fire(load, warmupSeconds, 1)
    await fetch(`${service.url}/health`, { headers: { [RESET_HEADER]: '1' } })
    await fire(load, seconds, 1)
    await service.stop()
    const report = JSON.parse(readFileSync(file, 'utf8')) as SpanReport
    const perRequest = (ms: number) => ms * 1000 / report.requests
    columns.push({
      title,
      requests: report.requests,
      requestUs: perRequest(report.requestMs),
      stepsUs: Object.fromEntries(Object.entries(report.steps).map(([step, { totalMs }]) => [step, perRequest(totalMs)]))
    })
  }
  return columns
}

/**
 * Steps timed inside another (the executor inside the route handler, the ledger inside the executor, an answer
 * written by the step that sent it).
 */
const nested = (step: string) => step.startsWith('execute.') || step.startsWith('ledger ') || step === WRITE_INSIDE_STEP
/** The order rows appear in: the request's own order, then what runs once it has been answered. */
const ORDER = ['onRequest', 'preParsing', 'parse body', 'preValidation', 'validate ', 'preHandler', 'route handler', 'execute.', 'ledger ', WRITE_INSIDE_STEP, 'preSerialization', 'onSend', WRITE_STEP, 'onResponse', 'access log']
const rank = (step: string) => {
  const found = ORDER.findIndex((prefix) => step.startsWith(prefix))
  return found === -1 ? ORDER.length : found
}

/** The table: µs per request of each step (rows) in each scenario (columns); steps under 0.5 µs everywhere are left out. */
export function breakdownTable (columns: BreakdownColumn[]): string[] {
  const steps = [...new Set(columns.flatMap((column) => Object.keys(column.stepsUs)))]
    .filter((step) => columns.some((column) => (column.stepsUs[step] ?? 0) >= 0.5))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
  const us = (value: number | undefined) => value === undefined ? '' : value.toFixed(value < 10 ? 1 : 0)
  const topLevel = (column: BreakdownColumn) => Object.entries(column.stepsUs)
    .filter(([step]) => !nested(step) && !step.startsWith('onResponse') && step !== 'access log line')
    .reduce((sum, [, value]) => sum + value, 0)
  return [
    `| Step (µs per request) | ${columns.map((column) => column.title).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    ...steps.map((step) => `| ${nested(step) ? `↳ ${step}` : step} | ${columns.map((column) => us(column.stepsUs[step])).join(' | ')} |`),
    `| **Fastify's time per request** (routing to the answer written, reply.elapsedTime) | ${columns.map((column) => us(column.requestUs)).join(' | ')} |`,
    `| of which outside the timed steps (routing, reading the body, serializing a returned object, Fastify's own steps) | ${columns.map((column) => us(column.requestUs - topLevel(column))).join(' | ')} |`,
    `| requests measured | ${columns.map((column) => String(column.requests)).join(' | ')} |`
  ]
}
