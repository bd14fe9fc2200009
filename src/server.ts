import closeWithGrace from 'close-with-grace'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import app, { serverOptions } from './app.js'
import { type Config, loadConfig } from './config.js'
import { releaseHungUpTerminals } from './hung-up-terminal.js'
import { createLogger } from './logger.js'
import { startupProblem } from './startup-problem.js'

let config
try {
  config = loadConfig()
} catch (error) {
  console.error(`Invalid configuration: ${(error as Error).message}`)
  process.exit(1)
}

const logger = createLogger(config)
// After the logger, so that its own exit handler flushes first.
releaseHungUpTerminals()
const server = Fastify({ ...serverOptions(config), loggerInstance: logger as FastifyBaseLogger })

// A gateway keeps connections open between requests. On close, Node ends the idle ones at once, but a
// connection busy with a request would stay open after its answer until the keep-alive timeout, far past
// the grace period: every answer sent while closing says `Connection: close`, so its socket ends with it.
let closing = false
server.addHook('preClose', async () => { closing = true })
// A callback hook: an async one cost every answer a promise and a turn of the microtask queue.
server.addHook('onSend', (_request, reply, payload, done) => {
  if (closing) reply.header('connection', 'close')
  done(null, payload)
})

// SIGTERM and SIGINT stop accepting connections and let in-flight requests finish.
const grace = closeWithGrace({ delay: 10_000, logger: server.log }, async ({ err, signal }) => {
  if (err !== undefined) server.log.error({ err }, 'shutting down after an error')
  else server.log.info({ signal }, 'shutting down: finishing in-flight requests')
  await server.close()
  logger.flush()
})

// In a function rather than at the top level: the bundle is CommonJS, which has no top-level await, so that a start
// can load it from V8's code cache (scripts/bundle.mjs).
async function start (config: Config) {
  try {
    // Loading the app opens the ledger; listening makes it ready (the catalog loads then). Either may fail.
    await server.register(app, { config })
    await server.listen({ port: config.PORT, host: config.HOST })
  } catch (error) {
    // What an operator caused (the port taken, the database down or misnamed, Redis down) is one line naming the
    // variable to fix, as a bad configuration is; its stack only helps at LOG_LEVEL=debug. Anything else is a bug.
    const problem = startupProblem(error, config)
    if (problem === null) {
      server.log.fatal({ err: error }, 'could not start')
    } else {
      console.error(`Could not start: ${problem}`)
      server.log.debug({ err: error }, 'could not start')
    }
    // close-with-grace also hooks the process's normal exit, and would end it with code 0: unhook it first.
    grace.uninstall()
    await server.close().catch((closeError: unknown) => server.log.error({ err: closeError }, 'closing after a failed start failed'))
    // pino flushes its asynchronous destination synchronously on exit.
    process.exit(1)
  }
}

void start(config)
