import pino from 'pino'
import type { Config } from './config.js'
import { LineEncoder } from './log-lines.js'

/** Secrets that must never reach a log line, wherever a serializer might print headers. */
export const redactPaths = [
  'req.headers["x-registry-wallet-token"]',
  'req.headers.authorization',
  'headers["x-registry-wallet-token"]',
  'headers.authorization'
]

/**
 * pino JSON lines for machines, pino-pretty when a person watches a terminal. Lines go to stdout
 * asynchronously: under load they are written in batches instead of one write per line, which is
 * most of what logging costs a request, each line encoded once (see LineEncoder). The server flushes them on shutdown.
 */
export function createLogger (config: Config): pino.Logger {
  const options = { level: config.LOG_LEVEL, redact: { paths: redactPaths, censor: '[redacted]' } }
  if (process.stdout.isTTY) return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } })
  return pino(options, new LineEncoder(pino.destination({ dest: 1, sync: false, contentMode: 'buffer' })))
}
