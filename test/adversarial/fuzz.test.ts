import fc from 'fast-check'
import { test } from 'tap'
import { backends } from '../databases.js'
import { errorShapeProblem, jsonRpcErrorProblem, send, type RawResponse } from './http.js'
import { fuzzCases, operationsOf, type FuzzCase, type Operation } from './operations.js'
import { LIMIT_PASSES, startTarget } from './target.js'

/** Requests per operation and backend; the document has about 25 operations. FUZZ_RUNS overrides it. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60)
/** Fixed by default, so a run is reproducible; FUZZ_SEED overrides it. */
const SEED = Number(process.env.FUZZ_SEED ?? 20231)
/** No request may take longer. */
const HANG_MS = 2000

interface Finding { operation: string, status: number | string, ms: number, problem: string, request: string }

function seedFor (operation: Operation): number {
  let hash = SEED
  for (const char of operation.label) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0
  return hash
}

/** The doors that speak JSON-RPC: POST /mcp, /mcp/oauth and /a2a (the agent card, tagged a2a too, answers the standard body). */
const isJsonRpc = (operation: Operation) => operation.method === 'POST' && ['/mcp', '/mcp/oauth', '/a2a'].includes(operation.template)
/**
 * The pages for a person (the OAuth consent and sign-in pages): their own refusals are pages that say what is wrong,
 * in words; refusals made before their handler (validation, URI length, rate limit) are the standard body.
 */
const isHtmlPage = (operation: Operation) => Object.keys((operation.operation.responses?.['400'] as { content?: object } | undefined)?.content ?? {}).includes('text/html')
const htmlPageProblem = (response: RawResponse) => /^text\/html\b/i.test(String(response.headers['content-type'] ?? '')) ? null : errorShapeProblem(response)

/** Why the answer breaks the contract, or null: no 5xx, and every error in the standard shape (JSON-RPC's on its doors). */
function problemOf (operation: Operation, response: RawResponse): string | null {
  if (response.status >= 500) return `answered ${response.status}: ${response.body.toString('utf8').slice(0, 200)}`
  if (response.status >= 400) {
    // A 431 is answered by the connection's HTTP parser before the request reaches any route, so it cannot know the door.
    const problem = response.status === 431
      ? errorShapeProblem(response)
      : isJsonRpc(operation) ? jsonRpcErrorProblem(response) : isHtmlPage(operation) ? htmlPageProblem(response) : errorShapeProblem(response)
    if (problem !== null) return `${response.status} error body: ${problem}`
  }
  return null
}

for (const backend of backends) {
  for (const pass of LIMIT_PASSES) {
    test(`fuzz: every operation of the live OpenAPI document (${backend.name}, ${pass.name})`, { skip: backend.skip, timeout: 240_000 }, async (t) => {
      const database = await backend.open()
      t.teardown(database.drop)
      const target = await startTarget(database, pass.env)
      t.teardown(target.stop)

      const operations = operationsOf(target.document)
      t.ok(operations.length >= 20, `${operations.length} operations in the document`)
      t.ok(operations.some((operation) => operation.template === '/api/bees/{id}/execute'), 'published Bees are called through the generic execute path (each has its own document)')

      // The first OAuth request loads oidc-provider (about 1.2 s and 30 MB here), on demand so that an instance no MCP
      // client authorizes with never carries it (docs/agents/oauth.md): a cold start, not a hang. It is loaded first.
      await send(target.url, { method: 'GET', path: '/.well-known/oauth-authorization-server' })

      const findings: Finding[] = []
      const statuses = new Map<string, number>()
      let sent = 0
      let slowest = { ms: 0, request: '' }
      for (const operation of operations) {
        const cases: FuzzCase[] = fc.sample(fuzzCases(target, operation), { seed: seedFor(operation), numRuns: RUNS })
        for (const fuzzCase of cases) {
          sent++
          let response: RawResponse
          try {
            response = await send(target.url, fuzzCase.request)
          } catch (error) {
            const code = (error as { code?: string }).code ?? 'ERROR'
            findings.push({ operation: operation.label, status: code, ms: HANG_MS, problem: `no answer: ${(error as Error).message}`, request: fuzzCase.description })
            continue
          }
          const key = `${operation.label} ${response.status}`
          statuses.set(key, (statuses.get(key) ?? 0) + 1)
          if (response.ms > slowest.ms) slowest = { ms: response.ms, request: fuzzCase.description }
          const problem = problemOf(operation, response)
          if (problem !== null) findings.push({ operation: operation.label, status: response.status, ms: response.ms, problem, request: fuzzCase.description })
          if (response.ms > HANG_MS) findings.push({ operation: operation.label, status: response.status, ms: response.ms, problem: `took ${Math.round(response.ms)} ms`, request: fuzzCase.description })
        }
      }

      const serverErrors = findings.filter((finding) => typeof finding.status === 'number' && finding.status >= 500)
      const badShapes = findings.filter((finding) => typeof finding.status === 'number' && finding.status < 500 && finding.problem.includes('error body'))
      const hangs = findings.filter((finding) => finding.ms > HANG_MS || typeof finding.status === 'string')
      const report = (list: Finding[]) => list.slice(0, 15).map((finding) => `${finding.operation} → ${finding.status} (${Math.round(finding.ms)} ms): ${finding.problem}\n    ${finding.request}`)

      const health = await Promise.all([0, 1, 2].map(async () => await send(target.url, { method: 'GET', path: '/health' })))
      const fastest = Math.min(...health.map((response) => response.ms))
      const alive = target.server.child.exitCode === null && target.server.child.signalCode === null
      console.log(`fuzz ${backend.name}, ${pass.name}: seed ${SEED}, ${RUNS} runs per operation, ${operations.length} operations: ${sent} requests, ` +
      `${serverErrors.length} 5xx, ${badShapes.length} malformed errors, ${hangs.length} hangs (>${HANG_MS} ms or no answer), ` +
      `slowest ${Math.round(slowest.ms)} ms, /health ${Math.round(fastest)} ms after, process ${alive ? 'alive' : 'dead'}`)
      if (process.env.FUZZ_VERBOSE !== undefined) console.log([...statuses].sort().map(([key, count]) => `  ${key}: ${count}`).join('\n'))
      if (slowest.ms > HANG_MS / 2) console.log(`  slowest: ${slowest.request}`)

      t.same(report(serverErrors), [], 'no request is answered with a 5xx')
      t.same(report(badShapes), [], 'every 4xx is JSON {error, code, message} with string fields')
      t.same(report(hangs), [], `every request is answered within ${HANG_MS} ms`)
      t.ok(alive, 'the server process is alive afterwards')
      t.ok(health.every((response) => response.status === 200), '/health answers 200 afterwards')
      t.ok(fastest < 100, `/health answers within 100 ms afterwards (${Math.round(fastest)} ms)`)
    })
  }
}
