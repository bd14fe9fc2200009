import type { FastifyInstance } from 'fastify'

/** The most a consent form may weigh: a handful of short fields. */
export const FORM_BODY_LIMIT = 8 * 1024

/** Parses application/x-www-form-urlencoded bodies (the consent form) into an object of strings, in this context only. */
export function acceptForms (fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
}
