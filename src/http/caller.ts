import type { FastifyRequest } from 'fastify'
import type { Caller, Principal } from '../core/principal.js'

/** The caller of a use case, on a route whose onRequest hook is requirePrincipal (which set the principal, or refused). */
export const callerOf = (request: FastifyRequest): Caller => ({ principal: request.principal as Principal, log: request.log })
