// Which files of the fast suite to run on a second Node.js: the fewest that still execute every function of the code
// that meets what changes from one Node to the next. Reads what the last `npm run coverage` left in .tap/: per process,
// the files it loaded (.tap/processinfo) and V8's function counts (.tap/coverage), each process counted for the test
// file that started it. .ci/lts-files holds the result, with the files chosen by reasoning (see there).
//
// What changes with the runtime, and so what is measured:
// - our files that import a runtime-sensitive module (RUNTIME_IMPORTS): native addons, crypto, threads, sockets,
//   child processes, the HTTP client, PostgreSQL and Redis clients, the OAuth server; every function of theirs that
//   the whole suite executes must be executed by the selection too;
// - the packages themselves (RUNTIME_PACKAGES): each one the suite loads must be loaded by the selection.
// Then a greedy cover, cheapest first: each step takes the file with the most functions not yet covered per second of
// its own run time (tap's, from .tap/test-results).
// Usage: npm run coverage && node scripts/runtime-tests.mjs [--why]   (--why: what each file adds, and the total)
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const RUNTIME_MODULES = [
  'node:crypto', 'node:worker_threads', 'node:net', 'node:tls', 'node:http', 'node:https', 'node:http2', 'node:zlib',
  'node:child_process', 'node:dns', 'node:tty', 'better-sqlite3', 're2', 'pg', 'pg-boss', 'ioredis', 'undici',
  'oidc-provider', 'jose'
]
// A type-only import brings no code; `import type` lines do not count.
const RUNTIME_IMPORTS = new RegExp(`^import (?!type )[^\\n]*from '(?:${RUNTIME_MODULES.join('|')})'|import\\('(?:${RUNTIME_MODULES.join('|')})'\\)`, 'm')
const RUNTIME_PACKAGES = ['better-sqlite3', 're2', 'pg', 'pg-boss', 'ioredis', 'undici', 'oidc-provider', 'jose', 'puppeteer-core',
  '@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@modelcontextprotocol/server', '@a2a-js/sdk', 'a2a-sdk-v03', 'sonic-boom', 'selfsigned']

function sourceFiles (folder) {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
}
const sensitive = new Set(['src', 'plugins', 'bees'].flatMap(sourceFiles).filter((file) => RUNTIME_IMPORTS.test(readFileSync(join(root, file), 'utf8'))))

const infoDir = join(root, '.tap/processinfo')
const coverageDir = join(root, '.tap/coverage')
if (!existsSync(infoDir) || !existsSync(coverageDir)) {
  console.error('no .tap/processinfo or .tap/coverage: run `npm run coverage` first')
  process.exit(1)
}
const infos = new Map(readdirSync(infoDir).map((name) => {
  const info = JSON.parse(readFileSync(join(infoDir, name), 'utf8'))
  return [info.uuid, info]
}))
/** The test file a process ran for: the root of its tree of processes, if that root ran a test file. */
function testFileOf (info) {
  const top = infos.get(info.root) ?? info
  const file = relative(root, top.argv[1] ?? '')
  // The fast suite's files: the others run without coverage, and what is left of an old run of theirs is stale.
  return /^test\/(?!process\/|eval\/|adversarial\/).*\.test\.ts$/.test(file) ? file : null
}

const itemsOf = new Map()
const add = (file, item) => {
  if (!itemsOf.has(file)) itemsOf.set(file, new Set())
  itemsOf.get(file).add(item)
}
for (const info of infos.values()) {
  const file = testFileOf(info)
  if (file === null) continue
  for (const loaded of info.files ?? []) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(loaded)?.[1]
    if (name !== undefined && RUNTIME_PACKAGES.includes(name)) add(file, `package ${name}`)
  }
  const coverageFile = join(coverageDir, `${info.uuid}.json`)
  if (!existsSync(coverageFile)) continue
  for (const script of JSON.parse(readFileSync(coverageFile, 'utf8')).result) {
    if (!script.url.startsWith('file://')) continue
    const source = relative(root, fileURLToPath(script.url))
    if (!sensitive.has(source)) continue
    for (const fn of script.functions) {
      if (fn.ranges[0].count > 0) add(file, `${source}:${fn.ranges[0].startOffset}:${fn.functionName || '(anonymous)'}`)
    }
  }
}

const secondsOf = new Map()
const resultsDir = join(root, '.tap/test-results')
for (const [file] of itemsOf) {
  const tap = join(resultsDir, `${file}.tap`)
  const times = existsSync(tap) ? [...readFileSync(tap, 'utf8').matchAll(/^# time=([\d.]+)ms/gm)] : []
  secondsOf.set(file, times.length > 0 ? Number(times.at(-1)[1]) / 1000 : 10)
}

const all = new Set([...itemsOf.values()].flatMap((items) => [...items]))
const left = new Set(all)
const chosen = []
while (left.size > 0) {
  let best = null
  for (const [file, items] of itemsOf) {
    if (chosen.some((pick) => pick.file === file)) continue
    const gained = [...items].filter((item) => left.has(item))
    if (gained.length === 0) continue
    const value = gained.length / Math.max(secondsOf.get(file), 0.5)
    if (best === null || value > best.value) best = { file, gained, value }
  }
  if (best === null) break
  for (const item of best.gained) left.delete(item)
  chosen.push(best)
}
const why = process.argv.includes('--why')
let seconds = 0
for (const { file, gained } of chosen) {
  seconds += secondsOf.get(file)
  if (!why) { console.log(file); continue }
  const packages = gained.filter((item) => item.startsWith('package ')).map((item) => item.slice(8))
  const files = new Set(gained.filter((item) => !item.startsWith('package ')).map((item) => item.split(':')[0]))
  console.log(`${file} (${secondsOf.get(file).toFixed(1)} s): +${gained.length} of ${all.size}` +
    `${packages.length > 0 ? `; loads ${packages.join(', ')}` : ''}; functions in ${[...files].join(', ')}`)
}
if (why) console.log(`${chosen.length} of ${itemsOf.size} test files, ${seconds.toFixed(0)} s of their own time, cover ${all.size} items: ${sensitive.size} runtime-sensitive source files' executed functions and the packages`)
