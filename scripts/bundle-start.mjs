// dist/bundle/server.js, what `npm start` runs: it loads the server's bundle (app.cjs, scripts/bundle.mjs) through
// V8's code cache, so that a start deserializes the code it runs instead of parsing 12 MB of JavaScript and compiling
// every function it calls (docs/performance.md, "Cold start"). Node 20 has no compile cache of its own
// (`module.enableCompileCache` came in Node 22) and none for ES modules at all, hence a CommonJS bundle run as a
// `vm.Script` with `cachedData`, the same on Node 20 and on the image's Node.
// The cache is one file per build, Node version, architecture and node flags (V8 refuses a cache made under other
// flags), written once by the first start that found none (CODE_CACHE_DIR, docs/operators/deployment.md). Without a
// writable directory a start compiles as it did before: slower, not broken.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Script } from 'node:vm'

/** How long after the start the cache is written if the process has not exited by then: the start's code is compiled. */
const WRITE_AFTER_MS = 10_000

const filename = fileURLToPath(new URL('./app.cjs', import.meta.url))
// The build's hash of app.cjs: V8 checks a cache against the source's length only, not its content.
const build = readFileSync(new URL('./app.cjs.sha256', import.meta.url), 'utf8').trim()
const key = createHash('sha256').update(JSON.stringify([build, process.version, process.arch, process.execArgv])).digest('hex')

/** The cache directory, or null: not wanted, or one another user could write a cache into (code this process would run). */
function cacheDirectory () {
  const setting = process.env.CODE_CACHE_DIR
  if (setting === 'off') return null
  const directory = setting === undefined || setting === '' ? join(tmpdir(), `apiary-code-cache-${process.getuid?.() ?? 'user'}`) : setting
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 })
    const { uid, mode } = statSync(directory)
    return (process.getuid === undefined || uid === process.getuid()) && (mode & 0o022) === 0 ? directory : null
  } catch {
    return null
  }
}

const directory = cacheDirectory()
const cacheFile = directory === null ? null : join(directory, `app-${key.slice(0, 32)}.bin`)

/**
 * The compiled bundle, and whether it still needs a cache. In a function of its own so that the cache's 4 MB do not
 * stay reachable after it.
 */
function compile () {
  let cachedData
  try {
    if (cacheFile !== null) cachedData = readFileSync(cacheFile)
  } catch {
    // None yet: this start writes it.
  }
  // The file is already a function, the CommonJS wrapper written into it by scripts/bundle.mjs: compiled as read, with
  // no second copy of its 12 MB made to add one. `$mport` is the bundle's dynamic import() of a package left in
  // node_modules, renamed by scripts/bundle.mjs (a vm.Script's own import() needs an experimental flag on Node 20).
  // ASCII (scripts/bundle.mjs), so read as Latin-1: no UTF-8 to decode, and V8 keeps it one byte a character.
  const script = new Script(readFileSync(filename, 'latin1'), { filename, cachedData })
  return { script, needsCache: cacheFile !== null && (cachedData === undefined || script.cachedDataRejected === true) }
}
const { script, needsCache } = compile()

let written = false
function writeCache () {
  if (written) return
  written = true
  // Made now, it holds every function compiled so far: a later start compiles none of the start's code.
  try {
    const partial = `${cacheFile}.${process.pid}`
    writeFileSync(partial, script.createCachedData())
    renameSync(partial, cacheFile)
  } catch {
    // A full or read-only disk: the next start compiles again.
  }
}
if (needsCache) {
  setTimeout(writeCache, WRITE_AFTER_MS).unref()
  // Not after a failed start: its cache would hold little of the code a start runs, and would stay.
  process.once('exit', (code) => { if (code === 0) writeCache() })
}

const module = { exports: {} }
script.runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename), (specifier) => import(specifier))
