import closeWithGrace from 'close-with-grace'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import app, { serverOptions } from './app.js'
import { loadConfig } from './config.js'
import { createLogger } from './logger.js'

let config
try {
  config = loadConfig()
} catch (error) {
  console.error(`Invalid configuration: ${(error as Error).message}`)
  process.exit(1)
}

const logger = createLogger(config)
const server = Fastify({ ...serverOptions(config), loggerInstance: logger as FastifyBaseLogger })
await server.register(app, { config })

// SIGTERM and SIGINT stop accepting connections and let in-flight requests finish.
closeWithGrace({ delay: 10_000, logger: server.log }, async ({ err, signal }) => {
  if (err !== undefined) server.log.error({ err }, 'shutting down after an error')
  else server.log.info({ signal }, 'shutting down: finishing in-flight requests')
  await server.close()
  logger.flush()
})

try {
  await server.listen({ port: config.PORT, host: config.HOST })
} catch (error) {
  server.log.fatal({ err: error }, 'could not start')
  logger.flush()
  process.exitCode = 1
  await server.close()
}
