// Bundles the server into dist/bundle/app.cjs for `npm start` and the Docker image: one file instead of about 1,900 ES
// modules and CommonJS files, which were half of the start (docs/performance.md). It is CommonJS so that
// dist/bundle/server.js (scripts/bundle-start.mjs) can load it through V8's code cache on Node 20 as on the image's Node.
// What is loaded only when configured (OpenTelemetry, OAuth, pg-boss, Redis, x402) or with its first use stays a
// dynamic import: code in the bundle that no start runs, so never compiled, or a package left in node_modules.
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { build } from 'esbuild'

const external = [
  // Native addons: they cannot be bundled.
  'better-sqlite3',
  're2',
  // Loaded by pino's worker thread from node_modules, and only when a terminal reads the log.
  'pino-pretty',
  // A 3 MB model in JSON: Node's JSON.parse reads it faster than V8 compiles it as a JavaScript object literal.
  'wink-eng-lite-web-model',
  // Loaded only when configured, and they find other modules at run time (require-in-the-middle, their own files):
  // left as they are in node_modules, so a start that configures them behaves as before.
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  '@fastify/otel',
  'oidc-provider',
  'pg-boss',
  'ioredis',
  '@x402/*'
]

/**
 * Packages that find files next to their own code (`__dirname`) are bundled all the same, their `__dirname` pointed at
 * where the package is installed, found at run time: @fastify/swagger-ui serves Swagger UI's files from there, and pino
 * and thread-stream start their worker threads (a terminal's pretty-printing) from files there. Left in node_modules,
 * they and their dependencies were about 80 ms of a start's 560 ms of CPU (AMD EPYC, `node --cpu-prof`), most of it
 * Node finding, reading and compiling a hundred CommonJS files one by one; from the bundle the same code takes a few.
 */
const OWN_PACKAGES = ['@fastify/swagger-ui', 'pino', 'thread-stream']
const OWN_FILE = new RegExp(`[\\\\/]node_modules[\\\\/](${OWN_PACKAGES.map((name) => name.replace('/', '[\\\\/]')).join('|')})[\\\\/](?:(.*)[\\\\/])?[^\\\\/]+\\.js$`)
const ownFolders = {
  name: 'own-folders',
  setup (build) {
    build.onLoad({ filter: OWN_FILE }, ({ path }) => {
      const [, name, below = ''] = OWN_FILE.exec(path)
      const source = readFileSync(path, 'utf8')
      // A package of their own (in a node_modules below), or no file to find.
      if (/node_modules/.test(below) || !source.includes('__dirname')) return undefined
      const parts = below.split(/[\\/]/).filter((part) => part !== '').map((part) => `, ${JSON.stringify(part)}`).join('')
      const installed = `require('node:path').dirname(require.resolve(${JSON.stringify(`${name.replaceAll('\\', '/')}/package.json`)}))`
      return { contents: `var __dirname = require('node:path').join(${installed}${parts});\n${source}`, loader: 'js', resolveDir: dirname(path) }
    })
  }
}

rmSync('dist/bundle', { recursive: true, force: true })
mkdirSync('dist/bundle', { recursive: true })
// The write-ahead log's checkpoint thread is a file of its own, which src/core/ledger/wal-checkpoints.ts starts from
// next to the bundle.
await build({
  entryPoints: { 'wal-checkpoint-worker': 'src/core/ledger/wal-checkpoint-worker.ts' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/bundle',
  external,
  sourcemap: 'linked',
  logLevel: 'warning'
})
const result = await build({
  entryPoints: ['src/server.ts'],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: 'dist/bundle/app.cjs',
  // What ownFolders' code asks where a package is installed: read at run time, not bundled.
  external: [...external, ...OWN_PACKAGES.map((name) => `${name}/package.json`)],
  plugins: [ownFolders],
  // The bundle's ES modules ask for their own URL (the worker's and the sentiment model's files, next to the bundle).
  define: { 'import.meta.url': '__bundleUrl' },
  // The CommonJS wrapper, as Node's own loader makes it, is written into the file: dist/bundle/server.js compiles the
  // file's text as it is read, where a wrapper added then made V8 copy the 12 MB into one more string. `$mport` is
  // the bundle's dynamic import() of a package left in node_modules (DYNAMIC_IMPORT below).
  banner: { js: "(function (exports, require, module, __filename, __dirname, $mport) {var __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  footer: { js: '})' },
  // For `node --enable-source-maps` when a stack trace must name the source; not read otherwise.
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning'
})
/**
 * A dynamic import() of a package left in node_modules stays import() in CommonJS, which a vm.Script may call only
 * under an experimental flag on Node 20: it becomes a call of `$mport`, the start's own import() (as long as `import`,
 * so the source map's columns hold). Only the quoted names esbuild writes are renamed; the bundle's other "import("
 * are in comments and strings.
 */
const DYNAMIC_IMPORT = /\bimport\(("(?:node:[\w/]+|[@\w][\w@./-]*)")\)/g
const dynamicNames = new Set()
/**
 * The bundle in ASCII: V8 holds a source with one other character as two bytes a character (24 MB for this one, for
 * as long as the process runs) and Node decodes it as UTF-8 at every start. esbuild already escapes what is left in
 * strings and identifiers; regular expression literals and comments keep theirs, where `\uXXXX` means the same
 * character (an escaped one, `\–`, loses its now needless backslash; one after an escaped backslash keeps both).
 */
function asciiOnly (text) {
  return text.replace(/(\\*)([^\0-\x7f])/gu, (_, backslashes, character) => {
    // A character past U+FFFF as its two UTF-16 units, which a regular expression reads as the one character.
    const units = Array.from({ length: character.length }, (__, i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')
    return `${backslashes.length % 2 === 1 ? backslashes.slice(1) : backslashes}${units}`
  })
}
for (const file of result.outputFiles) {
  let text = file.text
  if (file.path.endsWith('.cjs')) {
    text = asciiOnly(text.replace(DYNAMIC_IMPORT, (_, name) => {
      dynamicNames.add(JSON.parse(name))
      return `$mport(${name})`
    }))
    writeFileSync(`${file.path}.sha256`, `${createHash('sha256').update(text).digest('hex')}\n`)
  }
  writeFileSync(file.path, text)
}
const undeclared = [...dynamicNames].filter((name) => !name.startsWith('node:') && !external.some((pattern) => pattern.endsWith('/*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern || name.startsWith(`${pattern}/`)))
if (undeclared.length > 0) throw new Error(`the bundle imports ${undeclared.join(', ')} at run time, which is not one of its external packages`)
copyFileSync('scripts/bundle-start.mjs', 'dist/bundle/server.js')
// The sentiment model is read at run time from next to the module that reads it (bees/sentiment-analyzer/analyze.ts),
// so a JSON object never stays on the heap: copied next to the bundle.
copyFileSync('bees/sentiment-analyzer/sentiment-model.json', 'dist/bundle/sentiment-model.json')
// And next to tsc's own output, which the bench's baselines and a profile of the unbundled server import.
if (existsSync('dist/bees/sentiment-analyzer')) copyFileSync('bees/sentiment-analyzer/sentiment-model.json', 'dist/bees/sentiment-analyzer/sentiment-model.json')
// What every start runs: the modules the entry reaches through static imports. A package loaded only with its first use
// (undici, with the first outbound request: src/core/lazy-agent.ts) or only when configured must not come back into
// them through one static import (esbuild wraps what only a dynamic import reaches in a function of its own, run then).
const NOT_AT_START = ['node_modules/undici/', 'node_modules/@modelcontextprotocol/', 'node_modules/pg/', 'node_modules/cheerio/']
const { inputs } = result.metafile
const atStart = new Map([['src/server.ts', null]])
for (const queue = ['src/server.ts']; queue.length > 0;) {
  const file = queue.shift()
  for (const imported of inputs[file]?.imports ?? []) {
    if (imported.kind === 'dynamic-import' || imported.external === true || atStart.has(imported.path)) continue
    atStart.set(imported.path, file)
    queue.push(imported.path)
  }
}
for (const [file, importer] of atStart) {
  if (NOT_AT_START.some((lazy) => file.startsWith(lazy))) throw new Error(`${file}, which every start runs, is imported by ${importer}: should that import be dynamic?`)
}
// What went into the bundle, for esbuild's analyzer (https://esbuild.github.io/analyze/).
if (process.env.BUNDLE_META !== undefined) writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile))
