import type { FastifyServerOptions } from 'fastify'
import type { Config } from './config.js'

/** Secrets that must never reach a log line, wherever a serializer might print headers. */
export const redactPaths = [
  'req.headers["x-registry-wallet-token"]',
  'req.headers.authorization',
  'headers["x-registry-wallet-token"]',
  'headers.authorization'
]

/** pino JSON lines for machines, pino-pretty when a person watches a terminal. */
export function loggerOptions (config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.LOG_LEVEL,
    redact: { paths: redactPaths, censor: '[redacted]' },
    ...(process.stdout.isTTY ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } } : {})
  }
}
