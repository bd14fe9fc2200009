// Bundles the server into dist/bundle/server.js for `npm start` and the Docker image: one file to read and compile
// instead of about 1,900 ES modules and CommonJS files, which were half of the start (docs/performance.md).
// What is loaded only when configured (OpenTelemetry, OAuth, pg-boss, Redis, x402) stays a dynamic import: a chunk of
// its own, or a package left in node_modules, never read by a start that does not use it.
import { copyFileSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { build } from 'esbuild'

const external = [
  // Native addons: they cannot be bundled.
  'better-sqlite3',
  're2',
  // Serve files found next to their own code (__dirname): Swagger UI's static assets, pino's worker threads.
  '@fastify/swagger-ui',
  'pino',
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

// Chunks are named by their content: a stale one would stay behind.
rmSync('dist/bundle', { recursive: true, force: true })
const result = await build({
  entryPoints: { server: 'src/server.ts' },
  bundle: true,
  // Dynamic imports become chunks loaded on demand, not code every start reads.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/bundle',
  chunkNames: 'chunks/[name]-[hash]',
  external,
  // CommonJS packages inside an ES module bundle call require() for Node's built-ins.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  // For `node --enable-source-maps` when a stack trace must name the source; not read otherwise.
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning'
})
// The sentiment model is read at run time from next to the module that reads it (bees/sentiment-analyzer/analyze.ts),
// so a JSON object never stays on the heap: copied next to the chunk that module landed in.
const MODEL_READER = 'bees/sentiment-analyzer/analyze.ts'
const readers = Object.entries(result.metafile.outputs).filter(([, output]) => MODEL_READER in output.inputs)
if (readers.length !== 1) throw new Error(`${MODEL_READER} is in ${readers.length} bundle outputs, not one: where does the sentiment model go?`)
copyFileSync('bees/sentiment-analyzer/sentiment-model.json', join(dirname(readers[0][0]), 'sentiment-model.json'))
// And next to tsc's own output, which the bench's baselines and a profile of the unbundled server import.
if (existsSync('dist/bees/sentiment-analyzer')) copyFileSync('bees/sentiment-analyzer/sentiment-model.json', 'dist/bees/sentiment-analyzer/sentiment-model.json')
// What went into each file, for esbuild's analyzer (https://esbuild.github.io/analyze/).
if (process.env.BUNDLE_META !== undefined) writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile))
