import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { test } from 'tap'
import { conformanceCli, ltsNode, ltsToolsSkip } from '../lts-tools.js'
import { startServer } from '../server-process.js'

const run = promisify(execFile)

/**
 * The official MCP conformance suite's server scenarios, against a started server listening on loopback as a
 * local install does. dns-rebinding-protection posts `initialize` with Host and Origin evil.example.com (must be
 * 4xx), then with the server's own loopback host (must be 2xx).
 */
const SCENARIOS = ['dns-rebinding-protection', 'server-initialize', 'ping', 'tools-list']

test('the MCP conformance suite\'s scenarios pass on /mcp', { skip: ltsToolsSkip, timeout: 120_000 }, async (t) => {
  const server = await startServer({ DATABASE_URL: ':memory:' })
  t.teardown(() => server.stop())
  for (const scenario of SCENARIOS) {
    const outcome = await run(ltsNode, [conformanceCli, 'server', '--url', `${server.url}/mcp`, '--scenario', scenario], { timeout: 60_000 })
      .then(({ stdout }) => ({ code: 0, stdout }), (error: { code?: number, stdout?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '' }))
    t.equal(outcome.code, 0, `${scenario} passes`, { output: outcome.stdout.slice(-2000) })
  }
})
