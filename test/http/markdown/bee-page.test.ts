import { test } from 'tap'
import { Type } from 'typebox'
import { Registry, type BeeDefinition } from '../../../src/core/registry.js'
import { beePage } from '../../../src/http/markdown/bee-page.js'

function bee (extra: Partial<BeeDefinition> = {}) {
  return new Registry().register({
    id: 'coder',
    name: 'Coder',
    description: 'Checks a code.\n# Injected heading',
    category: 'utility',
    colony: 'core',
    type: 'builtin',
    ownerId: null,
    pricing: { type: 'free', costPerCall: 0, currency: 'USD' },
    config: { primaryServices: [], executionMode: 'sync', executionProvider: 'test' },
    inputSchema: Type.Object({ code: Type.String({ minLength: 1, description: 'The code.' }) }),
    outputSchema: Type.Object({ ok: Type.Boolean() }),
    execute: async () => ({ result: { ok: true }, confidence: 1, freshness: 0 }),
    ...extra
  })
}

test('a page has a title, summary, facts, tables and examples; record text stays on its line', async (t) => {
  const page = beePage(bee(), 'http://api.test')
  t.same([...page.matchAll(/^#+ .*$/gm)].map((match) => match[0]),
    ['# Coder', '## Input', '## Output', '## Call it with curl', '## Call it over MCP'])
  t.match(page, /^> Checks a code\. # Injected heading$/m)
  t.match(page, '- Price: free')
  t.match(page, 'Free: no wallet needed.')
  t.match(page, "-d '{\"code\":\"example\"}'")
  t.notMatch(page, /X-Registry-Wallet-Token: \$/, 'a free Bee needs no wallet header')
  t.notMatch(page, 'does not pass the input schema')
})

test('a paid Bee\'s examples send the wallet token from the shell, as the README does', async (t) => {
  const page = beePage(bee({ pricing: { type: 'pay-per-use', costPerCall: 0.25, currency: 'EUR' } }), 'http://api.test')
  t.match(page, '- Price: 0.25 EUR per call')
  t.equal(page.match(/-H "X-Registry-Wallet-Token: \$APIARY_WALLET_TOKEN"/g)?.length, 2, 'on the curl and the MCP example')
})

test('an example that fails the schema is marked; a deprecated Bee says when it ends', async (t) => {
  const strict = bee({
    inputSchema: Type.Object({ code: Type.String({ pattern: '^[0-9]{4}$' }) }),
    status: 'deprecated',
    statusMessage: 'Use coder-2.',
    sunsetAt: '2030-01-01T00:00:00.000Z'
  })
  const page = beePage(strict, 'http://api.test', 3)
  t.match(page, /^### Coder$/m, 'headings start at the level asked')
  t.match(page, /^#### Input$/m)
  t.match(page, 'The example input below does not pass the input schema as it stands')
  t.match(page, '**This Bee is deprecated**: it still answers, with Deprecation and Sunset headers; it stops answering at 2030-01-01T00:00:00.000Z. Use coder-2.')
})
