import { readFileSync } from 'node:fs'
import { test } from 'tap'
import { ConfigSchema, loadConfig } from '../../src/config.js'
import { envExample, envExamplePath } from '../../scripts/env-example.js'

test('.env.example is what the configuration schema generates (npm run env:example)', async (t) => {
  t.equal(readFileSync(envExamplePath, 'utf8'), envExample())
})

test('.env.example names every variable, and each value it shows is the default the service starts with', async (t) => {
  const assignments = Object.fromEntries(envExample().split('\n')
    .map((line) => /^#([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => [match[1] ?? '', match[2] ?? '']))
  t.same(Object.keys(assignments), Object.keys(ConfigSchema.properties))
  t.same(loadConfig(assignments), loadConfig({}))
})
