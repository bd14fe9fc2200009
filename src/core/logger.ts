import type { BaseLogger } from 'pino'

/** What the core logs through: pino's levels, which a Fastify request logger and a plain pino logger both have. */
export type Logger = Pick<BaseLogger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'>
