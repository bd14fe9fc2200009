import type { FastifyRequest } from 'fastify'

/** The admin token or publisher key a request presents as `Authorization: Bearer <token>`; undefined when none. */
export function bearerOf (request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  return header?.startsWith('Bearer ') === true ? header.slice('Bearer '.length) : undefined
}
