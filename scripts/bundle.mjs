// Bundles the server into dist/bundle/server.js for `npm start` and the Docker image: one file to read and compile
// instead of about 1,900 ES modules and CommonJS files, which were half of the start (docs/performance.md).
// What is loaded only when configured (OpenTelemetry, OAuth, pg-boss, Redis, x402) stays a dynamic import: a chunk of
// its own, or a package left in node_modules, never read by a start that does not use it.
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
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
const OWN_FILE = /[\\/]node_modules[\\/](@fastify[\\/]swagger-ui|pino|thread-stream)[\\/](?:(.*)[\\/])?[^\\/]+\.js$/
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

// Chunks are named by their content: a stale one would stay behind.
rmSync('dist/bundle', { recursive: true, force: true })
const result = await build({
  // The write-ahead log's checkpoint thread is a file of its own, which src/core/ledger/wal-checkpoints.ts starts from
  // next to itself.
  entryPoints: { server: 'src/server.ts', 'wal-checkpoint-worker': 'src/core/ledger/wal-checkpoint-worker.ts' },
  bundle: true,
  // Dynamic imports become chunks loaded on demand, not code every start reads.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/bundle',
  chunkNames: 'chunks/[name]-[hash]',
  external,
  plugins: [ownFolders],
  // CommonJS packages inside an ES module bundle call require() for Node's built-ins.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  // For `node --enable-source-maps` when a stack trace must name the source; not read otherwise.
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning'
})
const STARTER = 'src/core/ledger/wal-checkpoints.ts'
const starters = Object.entries(result.metafile.outputs).filter(([, output]) => STARTER in output.inputs)
if (starters.length !== 1 || dirname(starters[0][0]) !== 'dist/bundle') {
  throw new Error(`${STARTER} is in ${starters.map(([file]) => file).join(', ') || 'no output'}, not next to dist/bundle/wal-checkpoint-worker.js`)
}
// The sentiment model is read at run time from next to the module that reads it (bees/sentiment-analyzer/analyze.ts),
// so a JSON object never stays on the heap: copied next to the chunk that module landed in.
const MODEL_READER = 'bees/sentiment-analyzer/analyze.ts'
const readers = Object.entries(result.metafile.outputs).filter(([, output]) => MODEL_READER in output.inputs)
if (readers.length !== 1) throw new Error(`${MODEL_READER} is in ${readers.length} bundle outputs, not one: where does the sentiment model go?`)
copyFileSync('bees/sentiment-analyzer/sentiment-model.json', join(dirname(readers[0][0]), 'sentiment-model.json'))
// And next to tsc's own output, which the bench's baselines and a profile of the unbundled server import.
if (existsSync('dist/bees/sentiment-analyzer')) copyFileSync('bees/sentiment-analyzer/sentiment-model.json', 'dist/bees/sentiment-analyzer/sentiment-model.json')
// What every start reads: the entry and the chunks it imports statically. A package loaded only with its first use
// (undici, with the first outbound request: src/core/lazy-agent.ts) or only when configured must not come back into
// them through one static import.
const NOT_AT_START = ['node_modules/undici/', 'node_modules/@modelcontextprotocol/', 'node_modules/pg/', 'node_modules/cheerio/']
const atStart = new Set()
for (const queue = ['dist/bundle/server.js']; queue.length > 0;) {
  const file = queue.pop()
  if (atStart.has(file)) continue
  atStart.add(file)
  for (const imported of result.metafile.outputs[file].imports) if (imported.kind === 'import-statement' && imported.path in result.metafile.outputs) queue.push(imported.path)
}
for (const file of atStart) {
  const early = Object.keys(result.metafile.outputs[file].inputs).filter((input) => NOT_AT_START.some((lazy) => input.startsWith(lazy)))
  if (early.length > 0) throw new Error(`${file}, which every start reads, holds ${early[0]}: what statically imports it?`)
}
// What went into each file, for esbuild's analyzer (https://esbuild.github.io/analyze/).
if (process.env.BUNDLE_META !== undefined) writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile))
